// Many threads probing the same tables at once through one shared cache, small
// enough that blocks are evicted and decompressed again all the time, give the
// values the tables were written with. Run under ThreadSanitizer by scripts/test.sh.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "dtb.h"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

using V = draughts::International;
using Position = draughts::Position<10>;

TEST(TableThreads, EightThreadsAgreeWithOne) {
    const test::TemporaryDirectory dir("threads");
    const auto tables = dir.path() / "international";
    std::filesystem::create_directories(tables);
    const std::vector<Material> targets = {Material::parse("KKvKK"), Material::parse("KMvKM"),
                                           Material::parse("KKvKM")};
    for (const Material& m : build_order(targets)) test::write_synthetic_tables<V>(tables, m, 10);
    // One material without tables: its probes must fail the same way in every thread.
    const Material absent = Material::parse("KKKvK");

    std::mt19937_64 rng(2026);
    std::vector<Position> positions;
    for (int i = 0; i < 6000; ++i) {
        const Material& m = i % 10 == 0 ? absent : targets[rng() % targets.size()];
        const Index<10> index(m);
        Position p = index.unrank(rng() % index.size());
        if (rng() % 2) p = p.flipped();
        positions.push_back(p);
    }
    // The expected codes come from the tests' own search (synthetic_tables.hpp);
    // ~0 where the table is needed but missing (a position of the absent
    // material with a capture is answered from the smaller tables).
    std::vector<std::uint32_t> reference;
    for (const Position& p : positions) {
        const Position q = p.side_to_move == draughts::Color::white ? p : p.flipped();
        if (material_of(q).canonical() == absent && !draughts::has_capture<V>(p)) {
            reference.push_back(~0u);
            continue;
        }
        const test::Score s = test::expected_score<V>(p);
        reference.push_back(s.wdl == 0 ? 0 : static_cast<std::uint32_t>(s.plies) + 1);
    }

    // 256 KiB of cache: far less than the tables, so blocks come and go.
    const Prober<V> shared(dir.path(), 256 << 10);
    dtb_tablebase* c = nullptr;
    ASSERT_EQ(dtb_open("international", dir.path().c_str(), 256 << 10, &c), DTB_OK);
    std::atomic<std::uint64_t> disagreements{0}, probes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937_64 order(t);
            for (int pass = 0; pass < 16; ++pass) {
                for (std::size_t n = 0; n < positions.size(); ++n) {
                    const std::size_t i = order() % positions.size();
                    std::uint32_t got = ~0u;
                    if ((n + t) % 2 == 0) {
                        try {
                            got = dtw_code(shared.value(positions[i]));
                        } catch (const TableError&) {
                        }
                    } else {
                        dtb_position d{};
                        dtb_parse_fen(c, draughts::to_fen(positions[i]).c_str(), &d);
                        dtb_value v{};
                        const dtb_status s = dtb_probe_dtw(c, &d, &v);
                        if (s == DTB_OK)
                            got = dtw_code(Value{static_cast<Wdl>(v.wdl), v.plies});
                        else if (s != DTB_MISSING_TABLE || std::string(dtb_last_error()).find("KKKvK") ==
                                                               std::string::npos)
                            got = ~1u;
                    }
                    disagreements += got != reference[i];
                    ++probes;
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    dtb_close(c);
    EXPECT_EQ(disagreements.load(), 0u);
    const auto stats = shared.tables().cache().stats();
    EXPECT_LE(stats.bytes, std::size_t{512} << 10);  // the limit, or one block a shard above it
    std::printf("%llu probes in 8 threads; shared cache: %llu hits, %llu misses, %zu blocks kept\n",
                static_cast<unsigned long long>(probes.load()), static_cast<unsigned long long>(stats.hits),
                static_cast<unsigned long long>(stats.misses), stats.blocks);
}

// The same on tables of format 2 (docs/format.md, "Versions"): a .dtw of
// one side to move, whose other side every probe finds by a search through
// the shared cache, and a .wld of `wld_version` (4: compact, its positions
// left out searched too). Each thread's values and best moves are those of
// the brute force and of one thread with a cache that keeps everything.
void check_one_sided_tables(std::uint32_t wld_version) {
    using B = draughts::Brazilian;
    using P = draughts::Position<8>;
    const test::TemporaryDirectory dir("threads2");
    const std::vector<Material> targets = {Material::parse("KKvKM"), Material::parse("KMvKM")};
    const test::BruteForce<B> truth(targets);
    test::write_true_tables(truth, targets, dir.path(), 2, wld_version);
    std::mt19937_64 rng(2027);
    std::vector<P> positions;
    for (int i = 0; i < 3000; ++i) {
        const Index<8> index(targets[rng() % targets.size()]);
        P p = index.unrank(rng() % index.size());
        if (rng() % 2) p = p.flipped();
        positions.push_back(p);
    }
    const Prober<B> alone(dir.path());
    std::vector<std::optional<Prober<B>::BestMove>> best;
    for (const P& p : positions) {
        const test::Score s = truth.score(p);
        const Value expected = s.wdl == 0 ? Value::draw() : Value{static_cast<Wdl>(s.wdl), s.plies};
        ASSERT_EQ(alone.value(p), expected) << draughts::to_fen(p);
        best.push_back(alone.best_move(p));
    }
    const Prober<B> shared(dir.path(), 64 << 10);
    std::atomic<std::uint64_t> disagreements{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937_64 order(t);
            for (int pass = 0; pass < 4; ++pass)
                for (std::size_t n = 0; n < positions.size(); ++n) {
                    const std::size_t i = order() % positions.size();
                    const auto m = shared.best_move(positions[i]);
                    disagreements += shared.value(positions[i]) != alone.value(positions[i]) ||
                                     m.has_value() != best[i].has_value() ||
                                     (m && (m->move != best[i]->move || m->value != best[i]->value));
                }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(disagreements.load(), 0u);
    EXPECT_GT(shared.tables().cache().stats().misses, positions.size());  // blocks came and went
}

TEST(TableThreads, OneSidedTablesAgreeWithOne) { check_one_sided_tables(3); }
TEST(TableThreads, CompactWldAgreesWithOne) { check_one_sided_tables(4); }

}  // namespace
}  // namespace dtb
