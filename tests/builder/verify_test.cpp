// dtb verify's checks as a library (builder/output/verify.hpp): a set the
// solver built holds, every value agreeing with its moves; a set whose files
// are sound but whose values were made up (the synthetic tables) fails the
// forward check; a damaged file fails and is named; bad input throws.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "builder/driver/build.hpp"
#include "builder/output/verify.hpp"
#include "draughts/variant.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

struct Checks {
    std::vector<TableCheck> lines;
    int failed() const {
        int n = 0;
        for (const TableCheck& c : lines) n += !c.ok;
        return n;
    }
};

VerifyReport verify(const std::filesystem::path& dir, Checks& checks, bool full, const std::string& variant = "brazilian") {
    VerifyOptions o;
    o.dir = dir;
    o.full = full;
    return verify_tables(variant, o, [&](const TableCheck& c) { checks.lines.push_back(c); });
}

std::filesystem::path built_set(const test::TemporaryDirectory& dir) {
    BuildOptions o;
    o.variant = "brazilian";
    o.targets = materials_up_to(3);
    o.dir = dir.path();
    o.block_shift = 10;
    o.wld_compression_level = 3;
    o.output = BuildOptions::Output::quiet;
    build_tables(o);
    return dir.path();
}

TEST(Verify, BuiltSetHoldsWithEveryValueAgainstItsMoves) {
    const test::TemporaryDirectory dir{"verify-built"};
    const auto tables = built_set(dir);
    const std::size_t materials = build_order(materials_up_to(3)).size();
    Checks checks;
    const VerifyReport r = verify(tables, checks, true);
    EXPECT_EQ(r.failed, 0);
    EXPECT_EQ(r.files, 2 * materials);
    EXPECT_EQ(r.materials_checked, materials);
    EXPECT_EQ(checks.lines.size(), 3 * materials);
    EXPECT_EQ(checks.failed(), 0);
}

TEST(Verify, MadeUpValuesFailTheForwardCheckOnly) {
    const test::TemporaryDirectory dir{"verify-synthetic"};
    const auto tables = dir.path() / "brazilian";
    std::filesystem::create_directories(tables);
    for (const Material& m : build_order({Material::parse("KKvK")}))
        test::write_synthetic_tables<draughts::Brazilian>(tables, m, 10);
    Checks sound;
    EXPECT_EQ(verify(dir.path(), sound, false).failed, 0);  // the files themselves are sound
    Checks full;
    const VerifyReport r = verify(dir.path(), full, true);
    EXPECT_GT(r.failed, 0);
    bool named = false;
    for (const TableCheck& c : full.lines)
        named |= !c.ok && c.text.find("disagree with their moves; first W:") != std::string::npos;
    EXPECT_TRUE(named);
}

TEST(Verify, DamagedFileFailsAndIsNamed) {
    const test::TemporaryDirectory dir{"verify-damaged"};
    const auto tables = built_set(dir);
    const auto damaged = tables / "brazilian" / "KKvK.dtw";
    {
        std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(-8, std::ios::end);
        char c = 0;
        f.get(c);
        f.seekp(-8, std::ios::end);
        f.put(static_cast<char>(c ^ 0x5a));
    }
    Checks checks;
    const VerifyReport r = verify(tables, checks, true);
    EXPECT_EQ(r.failed, 1);
    EXPECT_EQ(r.materials_checked, 0u);  // no forward check over a damaged set
    ASSERT_EQ(checks.failed(), 1);
    for (const TableCheck& c : checks.lines)
        if (!c.ok) {
            EXPECT_NE(c.text.find(damaged.string()), std::string::npos) << c.text;
        }
}

TEST(Verify, BadInputThrows) {
    const test::TemporaryDirectory dir{"verify-empty"};
    Checks checks;
    EXPECT_THROW(verify(dir.path(), checks, false, "chess"), draughts::UnknownVariant);
    EXPECT_THROW(verify(dir.path(), checks, false), std::runtime_error);  // no tables there
}

}  // namespace
}  // namespace dtb
