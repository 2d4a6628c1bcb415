// Packed tables (builder/values/packed_codes.hpp): what is unpacked is what was
// packed, code for code, over several frames and a short last one, with
// capture marks or without; packed forms on disk
// (builder/driver/packed_forms.hpp) read back the same, and refused when
// damaged or written from another table.
// A table handed on packed, its frames spilled to disk, gives the writer and
// the packed form what its values give.
// A packed form's frames read as they lie are those pack_range() makes.
// Ranges packed for the wire (pack_range()) come back code for code and mark
// for mark into values that start elsewhere, and frames of another number,
// size or content are refused with the sender's name.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "builder/driver/material_job.hpp"
#include "builder/driver/packed_forms.hpp"
#include "builder/output/packed_file.hpp"
#include "builder/values/packed_codes.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

// Codes in runs, as tables have, and noise: 3 frames and a bit over both sides.
SolvedValues some_values() {
    const Material m = Material::parse("KKvK").canonical();
    const std::uint64_t per_side = (std::uint64_t{3} << 19) + 123;
    SolvedValues values(m, per_side);
    std::mt19937_64 random(7);
    for (std::uint64_t g = 0; g < values.codes.size();) {
        const std::uint64_t run = random() % 300;
        const auto code = static_cast<std::uint16_t>(random() % 3 == 0 ? random() : random() % 40);
        for (std::uint64_t k = 0; k < run && g < values.codes.size(); ++k) values.codes[g++] = code;
    }
    values.max_code = 39;
    values.mark_capture(5);
    for (std::uint64_t g = 0; g < values.codes.size(); g += 1 + random() % 5000) values.mark_capture(g);
    return values;
}

// Capture marks read and written 64 at a time, at every offset in a word
// and across words, agree with the marks one at a time.
TEST(SolvedValues, CaptureBitsAgreeWithTheMarksOneByOne) {
    SolvedValues from(Material::parse("KKvK").canonical(), 1000, 128, 700);
    std::mt19937_64 random(11);
    for (std::uint64_t g = 128; g < 828; ++g)
        if (random() % 3 == 0) from.mark_capture(g);
    for (const std::uint64_t g : {128u, 129u, 150u, 191u, 192u, 250u, 764u, 800u})
        for (const int n : {1, 7, 33, 63, 64}) {
            if (g + n > 828) continue;
            const std::uint64_t bits = from.capture_bits(g, n);
            SolvedValues into(from.material, 1000, 64, 832);
            const std::uint64_t past = n < 64 ? ~std::uint64_t{0} << n : 0;  // bits past n: ignored
            into.mark_capture_bits(g, bits | past, n);
            for (std::uint64_t x = 0; x < 64; ++x) {
                const bool in = x < static_cast<std::uint64_t>(n) && from.has_capture(g + x);
                EXPECT_EQ(bits >> x & 1, in ? 1u : 0u) << g << " " << n << " " << x;
                if (into.holds(g + x)) {
                    EXPECT_EQ(into.has_capture(g + x), in) << g << " " << n << " " << x;
                }
            }
        }
}

// A whole table without its capture marks (as the one-process build keeps
// them: lookups read codes only) packs to codes only and comes back so.
TEST(PackedRange, UnpacksAWholeTableWithoutCaptureMarks) {
    SolvedValues values = some_values();
    values.drop_capture_marks();
    const PackedRange packed = pack_range(values, 0, values.codes.size());
    EXPECT_LT(packed.held_bytes(), 2 * values.codes.size());
    SolvedValues back(values.material, values.positions_per_side);
    back.drop_capture_marks();
    unpack_range(packed.bytes, packed.frame_bytes, back, 0, back.codes.size(), "a kept table");
    EXPECT_TRUE(back.capture.empty());
    EXPECT_EQ(back.codes, values.codes);
    // Frames without capture words do not unpack into values that want them.
    SolvedValues marked(values.material, values.positions_per_side);
    EXPECT_THROW(unpack_range(packed.bytes, packed.frame_bytes, marked, 0, marked.codes.size(), "a kept table"),
                 std::runtime_error);
}

// The packed form of a table (builder/driver/packed_forms.hpp): read back
// code for code and mark for mark, for the table it was written from only;
// missing, cut short, a byte changed in a frame or in the header, or
// written where it cannot be: each refused naming the file.
TEST(PackedForms, ATableReadsBackWhatWasWritten) {
    SolvedValues values = some_values();
    for (std::uint64_t g = 0; g < values.codes.size(); g += 7) values.capture[g / 64] |= std::uint64_t{1} << (g % 64);
    const test::TemporaryDirectory dir("packed-forms");
    const Material m = values.material;
    write_packed_table(dir.path(), values, 0x1234);
    const auto file = packed_file(dir.path(), m, TableKind::dtw);
    EXPECT_TRUE(std::filesystem::exists(file));
    EXPECT_LT(std::filesystem::file_size(file), values.bytes() / 4);
    const SolvedValues back = read_packed_table(dir.path(), m, values.positions_per_side, 0x1234);
    EXPECT_EQ(back.codes, values.codes);
    EXPECT_EQ(back.capture, values.capture);
    EXPECT_EQ(back.max_code, values.max_code);
    const auto refused = [&](const std::string& why) {
        try {
            read_packed_table(dir.path(), m, values.positions_per_side, 0x1234);
            ADD_FAILURE() << "expected a packed form " << why << " to be refused";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
        }
    };
    EXPECT_THROW(read_packed_table(dir.path(), m, values.positions_per_side, 0x1235), std::runtime_error);
    const auto size = std::filesystem::file_size(file);
    for (const std::uintmax_t at : {size / 2, std::uintmax_t{30}}) {  // a frame's byte, the label's
        write_packed_table(dir.path(), values, 0x1234);
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(at));
        const char was = static_cast<char>(f.get());
        f.seekp(static_cast<std::streamoff>(at));
        f.put(static_cast<char>(was ^ 0x5a));
        f.close();
        refused("with a byte changed");
    }
    write_packed_table(dir.path(), values, 0x1234);
    std::filesystem::resize_file(file, size - 10);
    refused("cut short");
    remove_packed(dir.path(), m, TableKind::dtw);
    EXPECT_FALSE(std::filesystem::exists(file));
    refused("that is missing");
    const test::TemporaryDirectory blocked("packed-forms-blocked");
    std::ofstream(blocked.path() / ".packed") << "a file where the folder would be";
    EXPECT_THROW(write_packed_table(blocked.path(), values, 0x1234), std::runtime_error);
}

// The frames of a packed form read as they lie (read_packed_frames(): what a
// rank sends of a table it solved alone and wrote packed, instead of
// packing the part again) are byte for byte the frames pack_range() makes
// of the same positions, and unpack to the values; a range that does not
// begin on a frame, or ends inside one before the table's end, gets none,
// and so does a table without a packed form; a form of another table is
// refused.
TEST(PackedForms, FramesReadAsWrittenAreThoseTheRangePacksTo) {
    const SolvedValues values = some_values();  // 3 frames and 246 positions
    const test::TemporaryDirectory dir("packed-frames");
    const Material m = values.material;
    write_packed_table(dir.path(), values, 0x4321);
    constexpr std::uint64_t frame = std::uint64_t{1} << PackedRange::frame_shift;
    const std::uint64_t positions = values.codes.size();
    ASSERT_EQ(positions, 3 * frame + 246);
    for (const auto& [first, count] : {std::pair{std::uint64_t{0}, positions}, std::pair{frame, 2 * frame},
                                       std::pair{2 * frame, positions - 2 * frame}, std::pair{3 * frame, std::uint64_t{246}}}) {
        const std::optional<PackedRange> read = read_packed_frames(dir.path(), m, 0x4321, first, count);
        ASSERT_TRUE(read.has_value()) << first << " " << count;
        const PackedRange packed = pack_range(values, first, count);
        EXPECT_EQ(read->frame_bytes, packed.frame_bytes);
        EXPECT_EQ(read->bytes, packed.bytes);
        SolvedValues into(m, values.positions_per_side, first, count);
        unpack_range(read->bytes, read->frame_bytes, into, first, count, "the test");
        for (std::uint64_t g = first; g < first + count; ++g) {
            ASSERT_EQ(into.codes[g - first], values.codes[g]) << g;
            ASSERT_EQ(into.has_capture(g), values.has_capture(g)) << g;
        }
    }
    EXPECT_FALSE(read_packed_frames(dir.path(), m, 0x4321, 64, frame).has_value());
    EXPECT_FALSE(read_packed_frames(dir.path(), m, 0x4321, frame, frame + 64).has_value());
    EXPECT_THROW(read_packed_frames(dir.path(), m, 0x4322, 0, frame), std::runtime_error);
    remove_packed(dir.path(), m, TableKind::dtw);
    EXPECT_FALSE(read_packed_frames(dir.path(), m, 0x4321, 0, frame).has_value());
}

// A packed form of more frames than are written or read at once (64, of
// 2^20 positions each): 65 frames and a bit, written a few frames at a time
// and read back whole and as ranges that start and end inside frames.
TEST(PackedForms, ManyFramesAreWrittenAndReadAFewAtATime) {
    const Material m = Material::parse("KKvK").canonical();
    const std::uint64_t per_side = (std::uint64_t{65} << 19) + 1000;
    SolvedValues values(m, per_side);
    std::mt19937_64 random(11);
    for (std::uint64_t g = 0; g < values.codes.size(); g += 1 + random() % 20000) {
        values.codes[g] = static_cast<std::uint16_t>(random() % 40);
        values.mark_capture(g);
    }
    values.max_code = 39;
    const test::TemporaryDirectory dir("packed-many");
    write_packed_table(dir.path(), values, 0x99);
    const SolvedValues back = read_packed_table(dir.path(), m, per_side, 0x99);
    EXPECT_EQ(back.codes, values.codes);
    EXPECT_EQ(back.capture, values.capture);
    // Ranges that start and end inside frames: two frames cut, side by side;
    // a frame cut, 63 whole ones, a frame cut.
    for (const auto& [first, count] : {std::pair{(std::uint64_t{63} << 20) + 64 * 100, (std::uint64_t{3} << 19) + 64 * 7},
                                       std::pair{std::uint64_t{64} * 100, (std::uint64_t{65} << 20) - 64 * 200}}) {
        SolvedValues into(m, per_side, first, count);
        read_packed_range(dir.path(), 0x99, into);
        EXPECT_TRUE(std::equal(into.codes.begin(), into.codes.end(),
                               values.codes.begin() + static_cast<std::ptrdiff_t>(first)));
        for (std::uint64_t g = first; g < first + count; ++g) ASSERT_EQ(into.has_capture(g), values.has_capture(g)) << g;
    }
}

// A table handed on packed (PackedTable: a material solved a level at a
// time), its frames spilled to a scratch file (SpilledFrames): the writer
// reads from it the codes it reads from the values, a frame read back and
// unpacked for the blocks of several threads at once and calls that cross
// frames; its packed form on disk is byte for byte the one the values give.
// A frame changed on disk is refused naming the file; the file goes with
// the frames.
TEST(PackedTable, GivesTheWriterAndThePackedFormTheValues) {
    const SolvedValues values = some_values();
    const std::uint64_t n = values.codes.size();
    const test::TemporaryDirectory scratch("packed-table-scratch");
    auto frames = std::make_shared<SpilledFrames>(scratch.path() / "table.zst");
    const PackedRange packed_values = pack_range(values, 0, n);
    const PackedRange head = pack_range(values, 0, std::uint64_t{1} << 20);  // appended in two goes
    EXPECT_EQ(frames->append(head), 0u);
    EXPECT_EQ(frames->append(pack_range(values, std::uint64_t{1} << 20, n - (std::uint64_t{1} << 20))), 1u);
    EXPECT_EQ(frames->frame_bytes(), packed_values.frame_bytes);
    const PackedTable table{values.material, values.positions_per_side, n, values.max_code, {}, frames};
    const ValueSource expected = value_source(values), packed = value_source(table, 10);
    constexpr std::uint64_t block = 1024;
    std::vector<char> differ((n + block - 1) / block, 0);
    tbb::parallel_for(std::uint64_t{0}, differ.size(), [&](std::uint64_t b) {
        std::vector<std::uint32_t> a(std::min(block, n - b * block)), c(a.size());
        expected(b * block, a);
        packed(b * block, c);
        differ[b] = a != c;
    });
    EXPECT_EQ(std::count(differ.begin(), differ.end(), 1), 0);
    for (const std::uint64_t first : {(std::uint64_t{1} << 20) - 5, n - 3000}) {  // across frames, the last one
        std::vector<std::uint32_t> a(3000), c(3000);
        expected(first, a);
        packed(first, c);
        EXPECT_EQ(a, c) << first;
    }

    const test::TemporaryDirectory from_values("packed-table-values"), from_table("packed-table-table");
    write_packed_table(from_values.path(), values, 0x77);
    write_packed_table(from_table.path(), table, 0x77);
    EXPECT_TRUE(test::file_bytes(packed_file(from_values.path(), values.material, TableKind::dtw)) ==
                test::file_bytes(packed_file(from_table.path(), values.material, TableKind::dtw)));

    {
        std::fstream f(frames->file(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(head.bytes.size() + 10));  // a byte of frame 1
        f.put('\x5a');
    }
    EXPECT_NO_THROW(frames->read(0, 1));
    try {
        frames->read(1, 1);
        ADD_FAILURE() << "a frame changed on disk was read back";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(frames->file().string()), std::string::npos) << e.what();
    }
    const std::filesystem::path file = frames->file();
    frames.reset();
    EXPECT_TRUE(std::filesystem::exists(file));  // the table still holds them
}

// Spilled frames go with their keeper.
TEST(PackedTable, SpilledFramesGoWithTheirKeeper) {
    const test::TemporaryDirectory scratch("spilled-frames");
    const std::filesystem::path file = scratch.path() / "levels.zst";
    {
        SpilledFrames frames(file);
        frames.append(pack_range(some_values(), 0, 4096));
        EXPECT_TRUE(std::filesystem::exists(file));
    }
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_THROW(SpilledFrames(scratch.path() / "no-such-folder" / "levels.zst"), std::runtime_error);
}

// Byte arrays (a .rul's rule values) read back as written; keep_packed()
// leaves only the packed forms asked for, and the folder once it is empty.
// A table a team solved: each member writes its range as a part, and the
// parts read together make the table; a part missing, of another table, or
// of a team of another size is refused; removing the packed form removes
// the parts, and keep_packed keeps them as the table's.
TEST(PackedForms, ATeamsPartsMakeTheTable) {
    SolvedValues values = some_values();
    for (std::uint64_t g = 0; g < values.codes.size(); g += 5) values.capture[g / 64] |= std::uint64_t{1} << (g % 64);
    const test::TemporaryDirectory dir("packed-parts");
    const Material m = values.material;
    const std::uint64_t n = values.codes.size(), cut1 = 64 * 9000, cut2 = 64 * 40000;
    ASSERT_LT(cut2, n);
    const auto range = [&](std::uint64_t first, std::uint64_t end) {
        SolvedValues r(m, values.positions_per_side, first, end - first);
        std::copy_n(values.codes.begin() + static_cast<std::ptrdiff_t>(first), end - first, r.codes.begin());
        std::copy_n(values.capture.begin() + static_cast<std::ptrdiff_t>(first / 64), (end - first + 63) / 64,
                    r.capture.begin());
        r.max_code = values.max_code;
        return r;
    };
    write_packed_part(dir.path(), range(0, cut1), 0x77, 0, 3);
    write_packed_part(dir.path(), range(cut1, cut2), 0x77, 1, 3);
    EXPECT_TRUE(has_packed(dir.path(), m, TableKind::dtw));
    EXPECT_THROW(read_packed_table(dir.path(), m, values.positions_per_side, 0x77), std::runtime_error)
        << "member 2's part is missing";
    write_packed_part(dir.path(), range(cut2, n), 0x77, 2, 3);
    const SolvedValues back = read_packed_table(dir.path(), m, values.positions_per_side, 0x77);
    EXPECT_EQ(back.codes, values.codes);
    EXPECT_EQ(back.capture, values.capture);
    EXPECT_EQ(back.max_code, values.max_code);
    EXPECT_THROW(read_packed_table(dir.path(), m, values.positions_per_side, 0x78), std::runtime_error);
    // A range across all three parts, starting and ending inside frames,
    // and then the same range from a whole packed form.
    const auto expect_range = [&](std::uint64_t first, std::uint64_t count) {
        SolvedValues into(m, values.positions_per_side, first, count);
        read_packed_range(dir.path(), 0x77, into);
        const SolvedValues want = range(first, first + count);
        EXPECT_EQ(into.codes, want.codes);
        EXPECT_EQ(into.capture, want.capture);
    };
    expect_range(64 * 5000, cut2 - 64 * 5000 + 64 * 3);
    expect_range(cut2, n - cut2);
    keep_packed(dir.path(), {{m, TableKind::dtw}});
    EXPECT_NO_THROW(read_packed_table(dir.path(), m, values.positions_per_side, 0x77));
    remove_packed(dir.path(), m, TableKind::dtw);
    EXPECT_FALSE(has_packed(dir.path(), m, TableKind::dtw));
    // Parts of teams of two sizes (a build killed and solved again by another team).
    write_packed_table(dir.path(), values, 0x77);
    expect_range(64 * 5000, cut2 - 64 * 5000 + 64 * 3);
    remove_packed(dir.path(), m, TableKind::dtw);
    write_packed_part(dir.path(), range(0, cut1), 0x77, 0, 2);
    write_packed_part(dir.path(), range(cut1, n), 0x77, 1, 3);
    EXPECT_THROW(read_packed_table(dir.path(), m, values.positions_per_side, 0x77), std::runtime_error);
    // A table with fewer blocks than its team has members: a member's range is empty, and so is its part.
    remove_packed(dir.path(), m, TableKind::dtw);
    write_packed_part(dir.path(), range(0, cut1), 0x77, 0, 3);
    write_packed_part(dir.path(), range(cut1, cut1), 0x77, 1, 3);
    write_packed_part(dir.path(), range(cut1, n), 0x77, 2, 3);
    EXPECT_EQ(read_packed_table(dir.path(), m, values.positions_per_side, 0x77).codes, values.codes);
}

TEST(PackedForms, ByteArraysAndWhatIsKept) {
    const test::TemporaryDirectory dir("packed-forms");
    // 65 frames of 2^20 bytes and one of 5: more than are written and read at once.
    std::vector<std::uint8_t> codes((std::size_t{65} << 20) + 5), road(300);
    std::mt19937_64 random(3);
    for (auto& c : codes) c = static_cast<std::uint8_t>(random() % 4 == 0 ? random() : 7);
    for (auto& c : road) c = static_cast<std::uint8_t>(random());
    const auto file = dir.path() / "arrays.zst";
    write_packed_file(file, "two arrays", {codes, road, {}});
    const auto back = read_packed_file(file, "two arrays");
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0], codes);
    EXPECT_EQ(back[1], road);
    EXPECT_TRUE(back[2].empty());
    EXPECT_THROW(read_packed_file(file, "other arrays"), std::runtime_error);

    const Material a = Material::parse("KKvK"), b = Material::parse("KMvK");
    const SolvedValues values = some_values();
    write_packed_table(dir.path(), values, 1);  // KKvK's
    std::filesystem::copy_file(packed_file(dir.path(), a, TableKind::dtw), packed_file(dir.path(), b, TableKind::dtw));
    std::filesystem::copy_file(packed_file(dir.path(), a, TableKind::dtw), packed_file(dir.path(), a, TableKind::rul));
    keep_packed(dir.path(), {{b, TableKind::dtw}});
    EXPECT_FALSE(std::filesystem::exists(packed_file(dir.path(), a, TableKind::dtw)));
    EXPECT_FALSE(std::filesystem::exists(packed_file(dir.path(), a, TableKind::rul)));
    EXPECT_TRUE(std::filesystem::exists(packed_file(dir.path(), b, TableKind::dtw)));
    keep_packed(dir.path(), {});
    EXPECT_FALSE(std::filesystem::exists(packed_directory(dir.path())));
}

// Positions [first, first + count) of `values`, a range that starts at a
// multiple of 64 and spans a frame boundary with a short last frame.
constexpr std::uint64_t first = 64 * 1000, count = (std::uint64_t{1} << 21) + 77;

TEST(PackedRange, UnpacksWhatWasPackedIntoARangeElsewhere) {
    const SolvedValues values = some_values();
    const PackedRange packed = pack_range(values, first, count);
    ASSERT_EQ(packed.frame_bytes.size(), 3u);
    EXPECT_EQ(packed_frames(count), 3u);
    EXPECT_LT(packed.bytes.size(), count);  // under a byte a position for these runs
    // Into values holding from 64 x 900 on, as a team member's range does.
    SolvedValues into(values.material, values.positions_per_side, 64 * 900, count + 64 * 200);
    unpack_range(packed.bytes, packed.frame_bytes, into, first, count, "rank 3");
    for (std::uint64_t g = first; g < first + count; ++g) {
        ASSERT_EQ(into.code(g), values.code(g)) << g;
        ASSERT_EQ(into.has_capture(g), values.has_capture(g)) << g;
    }
    EXPECT_EQ(into.code(first - 1), 0);  // nothing outside the range is written
    EXPECT_FALSE(into.has_capture(first + count + 64));
}

// The message of what unpack_range() throws for these frames.
std::string refusal(const PackedRange& packed) {
    SolvedValues into(Material::parse("KKvK").canonical(), some_values().positions_per_side);
    try {
        unpack_range(packed.bytes, packed.frame_bytes, into, first, count, "rank 3");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "accepted";
}

TEST(PackedRange, RefusesFramesOfAnotherRange) {
    const PackedRange packed = pack_range(some_values(), first, count);
    PackedRange fewer = packed;
    fewer.frame_bytes.pop_back();
    fewer.bytes.resize(fewer.bytes.size() - packed.frame_bytes.back());
    EXPECT_NE(refusal(fewer).find("rank 3 sent KKvK packed in 2 frames where 3 were expected"), std::string::npos)
        << refusal(fewer);
    PackedRange cut = packed;
    cut.bytes.pop_back();
    EXPECT_NE(refusal(cut).find("bytes where its frames add up to"), std::string::npos) << refusal(cut);
    PackedRange changed = packed;
    changed.bytes[packed.frame_bytes[0] + 3] ^= std::byte{0xff};  // the second frame's header
    EXPECT_NE(refusal(changed).find("frame 1"), std::string::npos) << refusal(changed);
}

}  // namespace
}  // namespace dtb
