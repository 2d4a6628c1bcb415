// The one-process build of the 6x6 test boards (build_tables_of), for the
// tests: dtb_builder_test_boards, with the boards' solver, is linked by them
// only.
#include "builder/driver/build_of.hpp"
#include "draughts/variant.hpp"

namespace dtb {

template BuildReport build_tables_of<draughts::International6>(const BuildOptions&);
template BuildReport build_tables_of<draughts::American6>(const BuildOptions&);

}  // namespace dtb
