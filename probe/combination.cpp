#include "probe/combination.hpp"

namespace dtb::combination {

constexpr SearchTable search_table_value{};
// Two steps at most, taken without branches in largest_below: the keys' 5
// bits of mantissa are finer than the growth of C(c, k) in c for every
// c < 72 and k >= 2.
static_assert(search_table_value.max_steps <= 2);
const SearchTable search_table = search_table_value;

constexpr TailTables tail_tables_value{};
static_assert(tail_tables_value.pairs.size() == binomial(max_n, 2) &&
              tail_tables_value.triples.size() == binomial(max_n, 3));
const TailTables tail_tables = tail_tables_value;

}  // namespace dtb::combination
