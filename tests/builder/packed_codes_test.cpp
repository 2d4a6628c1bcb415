// Packed tables (builder/packed_codes.hpp): what is unpacked is what was
// packed, code for code, over several frames and a short last one.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "builder/packed_codes.hpp"

namespace dtb {
namespace {

TEST(PackedCodes, UnpacksWhatWasPacked) {
    const Material m = Material::parse("KKvK").canonical();
    const std::uint64_t per_side = (std::uint64_t{3} << 19) + 123;  // 3 frames and a bit over both sides
    SolvedValues values(m, per_side);
    std::mt19937_64 random(7);
    for (std::uint64_t g = 0; g < values.codes.size();) {  // runs of one code, as tables have, and noise
        const std::uint64_t run = random() % 300;
        const auto code = static_cast<std::uint16_t>(random() % 3 == 0 ? random() : random() % 40);
        for (std::uint64_t k = 0; k < run && g < values.codes.size(); ++k) values.codes[g++] = code;
    }
    values.max_code = 39;
    values.mark_capture(5);

    const PackedCodes packed(values);
    EXPECT_LT(packed.bytes(), packed.unpacked_bytes());
    EXPECT_EQ(packed.unpacked_bytes(), 2 * values.codes.size());
    const SolvedValues back = packed.unpack();
    EXPECT_EQ(back.material, m);
    EXPECT_EQ(back.positions_per_side, per_side);
    EXPECT_TRUE(back.whole());
    EXPECT_EQ(back.max_code, 39u);
    EXPECT_TRUE(back.capture.empty());  // codes only: lookups read no capture marks
    EXPECT_EQ(back.codes, values.codes);
}

TEST(PackedCodes, TakesWholeTablesOnly) {
    const Material m = Material::parse("KKvK").canonical();
    const SolvedValues part(m, 1000, 64, 500);
    EXPECT_THROW(PackedCodes{part}, std::logic_error);
}

}  // namespace
}  // namespace dtb
