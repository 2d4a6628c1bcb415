// The run-time-variant C++ interface (dtb.hpp): one Prober<V> behind a small
// virtual interface, and the conversions between dtb_position (PDN square
// sets) and draughts::Position.
#include <cstring>

#include "dtb.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "probe/rule_prober.hpp"

namespace dtb {

class Tablebase::Impl {
public:
    virtual ~Impl() = default;
    virtual const std::string& variant() const noexcept = 0;
    virtual int board_size() const noexcept = 0;
    virtual const std::vector<Material>& materials() const noexcept = 0;
    virtual dtb_position parse_fen(std::string_view fen) const = 0;
    virtual std::string to_fen(const dtb_position& p) const = 0;
    virtual Wdl wdl(const dtb_position& p) const = 0;
    virtual Value value(const dtb_position& p) const = 0;
    virtual std::optional<Tablebase::BestMove> best_move(const dtb_position& p) const = 0;
    virtual std::vector<dtb_move> best_line(const dtb_position& p) const = 0;
    virtual RuleValue rule_value(const dtb_position& p, const RuleCounts& counts) const = 0;
    virtual std::optional<Tablebase::RuleBestMove> rule_best_move(const dtb_position& p,
                                                                  const RuleCounts& counts) const = 0;
    virtual BlockCache::Stats cache_stats() const = 0;
};

namespace {

template <class V>
class VariantTablebase final : public Tablebase::Impl {
public:
    static constexpr int N = V::board_size;
    using G = draughts::Geometry<N>;
    using Bitboard = typename G::Bitboard;
    using Position = draughts::Position<N>;

    VariantTablebase(const std::filesystem::path& dir, std::size_t cache_bytes)
        : prober_(dir, cache_bytes), rules_(prober_), variant_(V::name) {}

    const std::string& variant() const noexcept override { return variant_; }
    int board_size() const noexcept override { return N; }
    const std::vector<Material>& materials() const noexcept override { return prober_.tables().materials(); }

    dtb_position parse_fen(std::string_view fen) const override { return to_squares(draughts::parse_fen<N>(fen)); }
    std::string to_fen(const dtb_position& p) const override { return draughts::to_fen(to_position(p)); }

    Wdl wdl(const dtb_position& p) const override { return prober_.wdl(to_position(p)); }
    Value value(const dtb_position& p) const override { return prober_.value(to_position(p)); }

    std::optional<Tablebase::BestMove> best_move(const dtb_position& p) const override {
        const Position position = to_position(p);
        const auto best = prober_.best_move(position);
        if (!best) return std::nullopt;
        return Tablebase::BestMove{to_move(position, best->move), best->value};
    }

    std::vector<dtb_move> best_line(const dtb_position& p) const override {
        Position position = to_position(p);
        std::vector<dtb_move> line;
        for (const auto& m : prober_.best_line(position)) {
            line.push_back(to_move(position, m));
            draughts::make_move(position, m);
        }
        return line;
    }

    RuleValue rule_value(const dtb_position& p, const RuleCounts& counts) const override {
        return rules_.value(to_position(p), counts);
    }

    std::optional<Tablebase::RuleBestMove> rule_best_move(const dtb_position& p,
                                                          const RuleCounts& counts) const override {
        const Position position = to_position(p);
        const auto best = rules_.best_move(position, counts);
        if (!best) return std::nullopt;
        return Tablebase::RuleBestMove{to_move(position, best->move), best->counts, best->after};
    }

    BlockCache::Stats cache_stats() const override { return prober_.tables().cache().stats(); }

private:
    static Bitboard to_bitboard(const std::uint64_t words[2], const char* what) {
        constexpr int squares = G::squares;
        const bool outside = squares <= 64 ? (words[1] != 0 || (squares < 64 && (words[0] >> squares) != 0))
                                           : (words[1] >> (squares - 64)) != 0;
        if (outside)
            throw PositionError(std::string(what) + " has a square beyond " + std::to_string(squares) + " (the " +
                                std::to_string(N) + "x" + std::to_string(N) + " board's last square)");
        Bitboard b = 0;
        for (int w = 0; w < 2; ++w)
            for (std::uint64_t bits = words[w]; bits; bits &= bits - 1)
                b |= draughts::bit<Bitboard>(G::bit_of_square(64 * w + std::countr_zero(bits)));
        return b;
    }

    static void to_words(Bitboard b, std::uint64_t words[2]) {
        words[0] = words[1] = 0;
        while (b) {
            const int square = G::square_of_bit[draughts::lowest_bit(b)];
            words[square / 64] |= std::uint64_t{1} << (square % 64);
            b &= b - 1;
        }
    }

    static Position to_position(const dtb_position& d) {
        Position p;
        p.white = to_bitboard(d.white, "white");
        p.black = to_bitboard(d.black, "black");
        p.kings = to_bitboard(d.kings, "kings");
        p.side_to_move = d.white_to_move ? draughts::Color::white : draughts::Color::black;
        return p;
    }

    static dtb_position to_squares(const Position& p) {
        dtb_position d{};
        to_words(p.white, d.white);
        to_words(p.black, d.black);
        to_words(p.kings, d.kings);
        d.white_to_move = p.side_to_move == draughts::Color::white;
        return d;
    }

    static dtb_move to_move(const Position& p, const draughts::Move<N>& m) {
        dtb_move d{};
        d.from = draughts::square_number<N>(m.from);
        d.to = draughts::square_number<N>(m.to);
        to_words(m.captured, d.captured);
        d.promotes = m.promotes;
        const std::string text = draughts::move_to_text<V>(p, m);
        std::strncpy(d.text, text.c_str(), sizeof d.text - 1);
        return d;
    }

    Prober<V> prober_;
    RuleProber<V> rules_;
    std::string variant_;
};

}  // namespace

Tablebase::Tablebase(std::string_view variant, const std::filesystem::path& dir, std::size_t cache_bytes)
    : impl_(draughts::with_variant(variant, [&]<class V>() -> std::unique_ptr<Impl> {
          return std::make_unique<VariantTablebase<V>>(dir, cache_bytes);
      })) {}

Tablebase::Tablebase(Tablebase&&) noexcept = default;
Tablebase& Tablebase::operator=(Tablebase&&) noexcept = default;
Tablebase::~Tablebase() = default;

const std::string& Tablebase::variant() const noexcept { return impl_->variant(); }
int Tablebase::board_size() const noexcept { return impl_->board_size(); }
const std::vector<Material>& Tablebase::materials() const noexcept { return impl_->materials(); }
dtb_position Tablebase::parse_fen(std::string_view fen) const { return impl_->parse_fen(fen); }
std::string Tablebase::to_fen(const dtb_position& p) const { return impl_->to_fen(p); }
Wdl Tablebase::wdl(const dtb_position& p) const { return impl_->wdl(p); }
Value Tablebase::value(const dtb_position& p) const { return impl_->value(p); }
std::optional<Tablebase::BestMove> Tablebase::best_move(const dtb_position& p) const { return impl_->best_move(p); }
std::vector<dtb_move> Tablebase::best_line(const dtb_position& p) const { return impl_->best_line(p); }
RuleValue Tablebase::rule_value(const dtb_position& p, const RuleCounts& counts) const {
    return impl_->rule_value(p, counts);
}
std::optional<Tablebase::RuleBestMove> Tablebase::rule_best_move(const dtb_position& p,
                                                                 const RuleCounts& counts) const {
    return impl_->rule_best_move(p, counts);
}
BlockCache::Stats Tablebase::cache_stats() const { return impl_->cache_stats(); }

}  // namespace dtb
