// Tables with the true values of small materials, from the brute-force solver
// written in the tests (brute_force.hpp), written by the builder's writer and
// probed: every position's value and best move, and the best line from every
// won or lost position, which must end the game in exactly the distance probed.
#include <optional>
#include <utility>

#include <gtest/gtest.h>

#include "dtb.h"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "tests/probe/brute_force.hpp"

namespace dtb {
namespace {

// The best move by the brute force: the first in generation order of the
// best score after it; none without a move.
template <class V>
std::optional<draughts::Move<V::board_size>> true_best_move(const test::BruteForce<V>& truth,
                                                            const draughts::Position<V::board_size>& p) {
    draughts::MoveList<V::board_size> moves;
    draughts::generate_moves<V>(p, moves);
    std::optional<std::pair<int, test::Score>> best;
    for (int k = 0; k < moves.size(); ++k) {
        auto child = p;
        draughts::make_move(child, moves[k]);
        const test::Score s = truth.score(child).for_mover();
        if (!best || s.rank() > best->second.rank()) best = {k, s};
    }
    if (!best) return std::nullopt;
    return moves[best->first];
}

// `wld_version` 3: the .wld in placement order (docs/format.md, "Positions");
// 1, in the table's order, as older builds wrote it; 4, compact: the
// positions a one-ply search answers left out (probe/left_out.hpp), of
// which the targets must have some.
template <class V>
void check_true_tables(const std::vector<Material>& targets, std::uint32_t wld_version = 3) {
    constexpr int N = V::board_size;
    const test::BruteForce<V> truth(targets);
    const test::TemporaryDirectory dir{"true-" + std::string(V::name)};
    test::write_true_tables(truth, targets, dir.path(), 2, wld_version);
    {
        const Prober<V> prober(dir.path());
        for (const Material& c : build_order(targets)) {
            const TableHeader& h = prober.tables().file(prober.tables().find(c).slot, TableKind::wld).header();
            ASSERT_EQ(h.version, wld_version) << c.name();
            ASSERT_EQ(h.paired(), wld_version >= 3 && c != c.mirrored()) << c.name();
            ASSERT_EQ(h.compact(), wld_version == 4) << c.name();
        }
    }
    std::uint64_t left_out_positions = 0;

    const Prober<V> prober(dir.path());
    std::uint64_t positions = 0, lines = 0, plies = 0;
    int longest = 0;
    for (const Material& c : build_order(targets)) {
        for (const Material& m : {c, c.mirrored()}) {
            const Index<N> index(m);
            for (std::uint64_t i = 0; i < index.size(); ++i) {
                for (const auto& p : {index.unrank(i), index.unrank(i).flipped()}) {
                    const test::Score s = truth.score(p);
                    const Value v = prober.value(p);
                    ++positions;
                    left_out_positions += left_out<V>(p);
                    ASSERT_EQ(static_cast<int>(prober.wdl(p)), s.wdl) << draughts::to_fen(p);
                    ASSERT_EQ(static_cast<int>(v.wdl), s.wdl) << draughts::to_fen(p);
                    ASSERT_EQ(v.plies, s.plies) << draughts::to_fen(p);
                    const auto best = prober.best_move(p);
                    const auto expected = true_best_move(truth, p);
                    ASSERT_EQ(best.has_value(), expected.has_value()) << draughts::to_fen(p);
                    if (best) {
                        ASSERT_EQ(best->move, *expected) << draughts::to_fen(p);
                        ASSERT_EQ(best->value, v) << draughts::to_fen(p);
                    }
                    const auto line = prober.best_line(p);
                    if (v.wdl == Wdl::draw) {
                        if (line.empty()) continue;
                        auto after = p;
                        draughts::make_move(after, line[0]);
                        ASSERT_EQ(truth.score(after).wdl, 0) << "the drawing move of " << draughts::to_fen(p);
                        continue;
                    }
                    ASSERT_EQ(static_cast<int>(line.size()), v.plies) << draughts::to_fen(p);
                    // Follow the line: each move keeps the distance, and the end is a lost position.
                    auto q = p;
                    for (std::size_t k = 0; k < line.size(); ++k) {
                        const test::Score before = truth.score(q);
                        draughts::make_move(q, line[k]);
                        const test::Score after = truth.score(q);
                        ASSERT_EQ(after.wdl, -before.wdl) << draughts::to_fen(p) << " move " << k;
                        ASSERT_EQ(after.plies, before.plies - 1) << draughts::to_fen(p) << " move " << k;
                    }
                    draughts::MoveList<N> moves;
                    if (q.pieces(q.side_to_move) != 0) draughts::generate_moves<V>(q, moves);
                    ASSERT_TRUE(moves.empty()) << "the line from " << draughts::to_fen(p) << " ends in a live position";
                    ++lines;
                    plies += line.size();
                    longest = std::max(longest, v.plies);
                }
            }
        }
    }
    EXPECT_GT(lines, 0u);
    if (wld_version == 4) {
        EXPECT_GT(left_out_positions, 0u);
    }
    std::printf("%s: %llu positions probed against the brute-force solver, %llu best lines followed (%llu plies, "
                "longest %d)\n",
                std::string(V::name).c_str(), static_cast<unsigned long long>(positions),
                static_cast<unsigned long long>(lines), static_cast<unsigned long long>(plies), longest);

    // The C API's line agrees with the C++ one.
    dtb_tablebase* c = nullptr;
    ASSERT_EQ(dtb_open(std::string(V::name).c_str(), dir.path().c_str(), 0, &c), DTB_OK);
    const Index<N> index(targets.front());
    for (std::uint64_t i = 0; i < index.size(); i += 97) {
        const auto p = index.unrank(i);
        dtb_position d{};
        ASSERT_EQ(dtb_parse_fen(c, draughts::to_fen(p).c_str(), &d), DTB_OK);
        std::vector<dtb_move> moves(64);
        std::size_t count = 0;
        ASSERT_EQ(dtb_best_line(c, &d, moves.data(), moves.size(), &count), DTB_OK) << dtb_last_error();
        const auto line = prober.best_line(p);
        ASSERT_EQ(count, line.size());
        auto q = p;
        for (std::size_t k = 0; k < std::min(count, moves.size()); ++k) {
            EXPECT_EQ(std::string(moves[k].text), draughts::move_to_text<V>(q, line[k]));
            draughts::make_move(q, line[k]);
        }
    }
    dtb_close(c);
}

TEST(TrueTables, AmericanKingsAndAMan) {
    check_true_tables<draughts::American>({Material::parse("KKvK"), Material::parse("KMvK")});
}
// The .wld of format 1 (the table's order) is still read, beside a .dtw
// of one side to move.
TEST(TrueTables, WldOfVersion1American) {
    check_true_tables<draughts::American>({Material::parse("KKvK"), Material::parse("KMvK")}, 1);
}
TEST(TrueTables, WldOfVersion1International) {
    check_true_tables<draughts::International>({Material::parse("KMvK")}, 1);
}
// A compact .wld (version 4): every position left out is found by the
// probe's search, flying kings (half of their positions threatened) and
// short ones alike.
TEST(TrueTables, CompactWldAmerican) {
    check_true_tables<draughts::American>({Material::parse("KKvK"), Material::parse("KMvK")}, 4);
}
TEST(TrueTables, CompactWldBrazilian) {
    check_true_tables<draughts::Brazilian>({Material::parse("KKvK"), Material::parse("KMvK")}, 4);
}
TEST(TrueTables, CompactWldInternational) { check_true_tables<draughts::International>({Material::parse("KMvK")}, 4); }
TEST(TrueTables, BrazilianKings) { check_true_tables<draughts::Brazilian>({Material::parse("KKvK")}); }
TEST(TrueTables, RussianManAgainstKing) { check_true_tables<draughts::Russian>({Material::parse("KMvK")}); }
TEST(TrueTables, InternationalKingsAndAMan) {
    check_true_tables<draughts::International>({Material::parse("KKvK"), Material::parse("KMvK")});
}

// The .dtw of format 2 (docs/format.md, "Versions"): one half of a
// material unlike its mirror, the smaller, whose blocks are the .wld's cut
// to it; the read back of a version 1 .dtw written from the same values
// gives every position the same value and best move; without its .wld it is refused,
// naming the .wld.
TEST(TrueTables, OneSidedDtwAgainstVersion1) {
    using V = draughts::American;
    constexpr int N = V::board_size;
    const std::vector<Material> targets{Material::parse("KMvK")};
    const test::BruteForce<V> truth(targets);
    const test::TemporaryDirectory two{"dtw2"}, one{"dtw1"};
    test::write_true_tables(truth, targets, two.path());
    test::write_true_tables(truth, targets, one.path(), 1);
    const Prober<V> after(two.path()), before(one.path());
    for (const Material& c : build_order(targets)) {
        const int slot = after.tables().find(c).slot;
        const TableHeader& dtw = after.tables().file(slot, TableKind::dtw).header();
        const TableHeader& old = before.tables().file(before.tables().find(c).slot, TableKind::dtw).header();
        EXPECT_EQ(dtw.version, 2u) << c.name();
        EXPECT_EQ(old.version, 1u) << c.name();
        EXPECT_EQ(dtw.stored == StoredHalf::both, c == c.mirrored()) << c.name();
        if (dtw.stored == StoredHalf::both) continue;
        // Fewer bytes than the half not kept: the file is under the version 1
        // file's size, which holds both, and its blocks cover the half exactly.
        EXPECT_LT(std::filesystem::file_size(after.tables().path_of(c, TableKind::dtw)),
                  std::filesystem::file_size(before.tables().path_of(c, TableKind::dtw)));
        std::uint64_t covered = 0;
        for (std::uint64_t b = 0; b < dtw.block_count(); ++b) {
            EXPECT_EQ(dtw.block_first(b), b == 0 ? dtw.stored_begin() : (dtw.block_first(b) >> dtw.block_shift) << dtw.block_shift);
            covered += dtw.block_values(b);
        }
        EXPECT_EQ(covered, dtw.positions_per_side);
        for (const Material& m : {c, c.mirrored()}) {
            const Index<N> index(m);
            for (std::uint64_t i = 0; i < index.size(); ++i)
                for (const auto& p : {index.unrank(i), index.unrank(i).flipped()}) {
                    ASSERT_EQ(after.value(p), before.value(p)) << draughts::to_fen(p);
                    ASSERT_EQ(after.from_moves(p), before.value(p)) << draughts::to_fen(p);
                    const auto best = after.best_move(p);
                    const auto expected = true_best_move(truth, p);
                    ASSERT_EQ(best.has_value(), expected.has_value()) << draughts::to_fen(p);
                    if (!best) continue;
                    EXPECT_EQ(best->move, *expected) << draughts::to_fen(p);
                    EXPECT_EQ(best->value, before.value(p)) << draughts::to_fen(p);
                }
        }
    }
    std::filesystem::remove(two.path() / "american" / "KMvK.wld");
    const Prober<V> without(two.path());
    const auto p = Index<N>(Material::parse("KMvK")).unrank(0);
    try {
        (void)without.value(draughts::has_capture<V>(p) ? p.flipped() : p);
        ADD_FAILURE() << "a .dtw of format 2 was read without its .wld";
    } catch (const TableError& e) {
        EXPECT_EQ(e.kind(), TableErrorKind::missing) << e.what();
        EXPECT_NE(std::string(e.what()).find("KMvK.wld"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace dtb
