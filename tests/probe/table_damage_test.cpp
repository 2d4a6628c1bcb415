// Damaged and missing tables: every kind of damage gives a TableError of the
// right kind naming the file, never a crash or a value; undamaged blocks of
// the same file still read.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "dtb.h"
#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "probe/prober.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

using V = draughts::Brazilian;
using Position = draughts::Position<8>;

std::vector<std::byte> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    std::memcpy(bytes.data(), chars.data(), chars.size());
    return bytes;
}

void write_file(const std::filesystem::path& p, const std::vector<std::byte>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

class TableDamage : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TemporaryDirectory("damage");
        for (const char* variant : {"brazilian", "russian"}) {
            const auto tables = dir_->path() / "pristine" / variant;
            std::filesystem::create_directories(tables);
            for (const Material& m : build_order({Material::parse("KKvKK"), Material::parse("KMvK")})) {
                if (std::string(variant) == "brazilian")
                    test::write_synthetic_tables<draughts::Brazilian>(tables, m, 10);
                else
                    test::write_synthetic_tables<draughts::Russian>(tables, m, 10);
            }
        }
    }
    static void TearDownTestSuite() { delete dir_; }

    // A fresh copy of the pristine tables to damage; returns DIR (tables in DIR/brazilian).
    std::filesystem::path fresh_copy() {
        const auto dir = dir_->path() / ("copy" + std::to_string(copies_++));
        std::filesystem::copy(dir_->path() / "pristine", dir, std::filesystem::copy_options::recursive);
        return dir;
    }

    // A KKvKK position without a capture stored in block `block` of the table
    // (2^10 positions a block), White to move.
    static Position quiet_position_in_block(std::uint64_t block) {
        const Index<8> index(Material::parse("KKvKK"));
        for (std::uint64_t g = block << 10;; ++g) {
            const Position p = index.unrank(g);
            if (!draughts::has_capture<V>(p)) return p;
        }
    }

    static TableError probe_error(const std::filesystem::path& dir, const Position& p) {
        try {
            const Prober<V> prober(dir);
            prober.value(p);
        } catch (const TableError& e) {
            return e;
        }
        ADD_FAILURE() << "no error probing " << draughts::to_fen(p);
        return TableError(TableErrorKind::io, "", "");
    }

    static inline test::TemporaryDirectory* dir_ = nullptr;
    static inline int copies_ = 0;
};

const Material kkkk = Material::parse("KKvKK");

TEST_F(TableDamage, PristineTablesRead) {
    const Prober<V> prober(dir_->path() / "pristine");
    EXPECT_NO_THROW(prober.value(quiet_position_in_block(3)));
    for (const Material& m : prober.tables().materials()) {
        const int slot = prober.tables().find(m).slot;
        EXPECT_NO_THROW(prober.tables().file(slot, TableKind::dtw).verify()) << m.name();
        EXPECT_NO_THROW(prober.tables().file(slot, TableKind::wld).verify()) << m.name();
    }
}

TEST_F(TableDamage, MissingDirectoryNamesIt) {
    try {
        const Prober<V> prober(dir_->path() / "nowhere");
        FAIL() << "opened a directory that does not exist";
    } catch (const TableError& e) {
        EXPECT_EQ(e.kind(), TableErrorKind::missing);
        EXPECT_NE(std::string(e.what()).find("nowhere/brazilian"), std::string::npos) << e.what();
    }
}

TEST_F(TableDamage, MissingTableNamesTheFile) {
    const auto dir = fresh_copy();
    std::filesystem::remove(dir / "brazilian" / "KKvK.wld");
    std::filesystem::remove(dir / "brazilian" / "KKvK.dtw");
    const Position p = draughts::parse_fen<8>("W:WK1,K3:BK32");
    const TableError e = probe_error(dir, p);
    EXPECT_EQ(e.kind(), TableErrorKind::missing);
    EXPECT_NE(std::string(e.what()).find("KKvK.wld"), std::string::npos) << e.what();
    // Materials with no table at all: KKKvKK was never written.
    EXPECT_EQ(probe_error(dir, draughts::parse_fen<8>("W:WK1,K3,K5:BK32,K30")).kind(), TableErrorKind::missing);
}

TEST_F(TableDamage, WdlFallsBackToTheDtwTableButDtwNeedsItsOwn) {
    const auto dir = fresh_copy();
    const Position p = quiet_position_in_block(5);
    const Value before = Prober<V>(dir).value(p);
    std::filesystem::remove(dir / "brazilian" / "KKvKK.wld");
    EXPECT_EQ(Prober<V>(dir).wdl(p), before.wdl);
    std::filesystem::remove(dir / "brazilian" / "KKvKK.dtw");
    const TableError e = probe_error(dir, p);
    EXPECT_EQ(e.kind(), TableErrorKind::missing);
}

TEST_F(TableDamage, TruncatedFileIsReported) {
    const auto original = read_file(dir_->path() / "pristine" / "brazilian" / "KKvKK.dtw");
    const DecodedTable t = decode_table(original, "KKvKK.dtw");
    const std::size_t header = t.header.header_size;
    for (std::size_t length : {std::size_t{0}, std::size_t{5}, std::size_t{40}, header - 8, header + 12,
                               static_cast<std::size_t>(t.header.blocks_start()) - 3,
                               static_cast<std::size_t>(t.header.blocks_start()) + 100, original.size() / 2,
                               original.size() - 1}) {
        const auto dir = fresh_copy();
        write_file(dir / "brazilian" / "KKvKK.dtw", std::vector<std::byte>(original.begin(), original.begin() + length));
        const TableError e = probe_error(dir, quiet_position_in_block(0));
        EXPECT_EQ(e.kind(), TableErrorKind::truncated) << "length " << length << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("KKvKK.dtw"), std::string::npos) << e.what();
    }
}

TEST_F(TableDamage, FlippedByteInABlockFailsThatBlockOnly) {
    const auto dir = fresh_copy();
    const auto path = dir / "brazilian" / "KKvKK.dtw";
    auto bytes = read_file(path);
    const DecodedTable t = decode_table(bytes, path);
    const std::uint64_t block = 7;
    const std::uint64_t at = load_u64(t.offsets.data() + 8 * block) + 5;
    bytes[at] ^= std::byte{0x10};
    write_file(path, bytes);
    const TableError e = probe_error(dir, quiet_position_in_block(block));
    EXPECT_EQ(e.kind(), TableErrorKind::corrupted) << e.what();
    EXPECT_NE(std::string(e.what()).find("block 7"), std::string::npos) << e.what();
    const Prober<V> prober(dir);
    EXPECT_NO_THROW(prober.value(quiet_position_in_block(6)));
    EXPECT_NO_THROW(prober.value(quiet_position_in_block(8)));
}

TEST_F(TableDamage, EveryFlippedHeaderOrOffsetByteIsRefused) {
    const auto original = read_file(dir_->path() / "pristine" / "brazilian" / "KKvKK.wld");
    const DecodedTable t = decode_table(original, "KKvKK.wld");
    const auto dir = fresh_copy();
    const auto path = dir / "brazilian" / "KKvKK.wld";
    const Position p = quiet_position_in_block(2);
    for (std::size_t at = 0; at < t.header.blocks_start(); ++at) {
        auto bytes = original;
        bytes[at] ^= std::byte{0x01};
        write_file(path, bytes);
        try {
            const Prober<V> prober(dir);
            prober.wdl(p);
            ADD_FAILURE() << "a flipped bit at byte " << at << " went unnoticed";
        } catch (const TableError& e) {
            // A flip in a count may make the file look short; otherwise the checksum fails.
            const bool reason = e.kind() == TableErrorKind::corrupted || e.kind() == TableErrorKind::truncated ||
                                (at < 8 && e.kind() == TableErrorKind::foreign) ||
                                (at >= 8 && at < 12 && e.kind() == TableErrorKind::unsupported);
            EXPECT_TRUE(reason) << "byte " << at << ": " << e.what();
            if ((at >= 16 && at < 48) || at >= t.header.header_size) {
                EXPECT_EQ(e.kind(), TableErrorKind::corrupted) << "byte " << at;
            }
        }
    }
}

// Found by the fuzzer: a block count of 2^64 - 1 once wrapped round to 0 in the
// size check, and the reader read past the end of the file.
TEST_F(TableDamage, HugeBlockCountIsTruncationNotAWrapRound) {
    auto bytes = read_file(dir_->path() / "pristine" / "brazilian" / "KKvKK.dtw");
    for (std::uint64_t count : {~std::uint64_t{0}, ~std::uint64_t{0} >> 3, std::uint64_t{1} << 60}) {
        auto damaged = bytes;
        store_u64(&damaged[56], count);
        try {
            TableFile::from_bytes(damaged, "KKvKK.dtw");
            ADD_FAILURE() << "block count " << count << " accepted";
        } catch (const TableError& e) {
            EXPECT_EQ(e.kind(), TableErrorKind::truncated) << e.what();
        }
    }
}

// A write that fails half way (here: a code larger than announced) leaves
// neither the table nor its temporary file behind.
TEST_F(TableDamage, FailedWriteLeavesNothingBehind) {
    const test::TemporaryDirectory dir("failed-write");
    const Material m = Material::parse("KKvK");
    TableSpec spec{"brazilian", 8, m, Index<8>(m).size(), 10, 3, 3, "", std::uint32_t{5}};
    EXPECT_THROW(write_tables(dir.path(), spec,
                              [](std::uint64_t first, std::span<std::uint32_t> out) {
                                  for (std::size_t i = 0; i < out.size(); ++i) out[i] = (first + i) % 9;
                              }),
                 std::runtime_error);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST_F(TableDamage, TableOfAnotherVariantOrMaterialIsRefused) {
    const auto dir = fresh_copy();
    std::filesystem::copy_file(dir / "russian" / "KKvKK.dtw", dir / "brazilian" / "KKvKK.dtw",
                               std::filesystem::copy_options::overwrite_existing);
    TableError e = probe_error(dir, quiet_position_in_block(1));
    EXPECT_EQ(e.kind(), TableErrorKind::foreign);
    EXPECT_NE(std::string(e.what()).find("variant russian"), std::string::npos) << e.what();

    std::filesystem::copy_file(dir / "brazilian" / "KMvK.dtw", dir / "brazilian" / "KKvKK.dtw",
                               std::filesystem::copy_options::overwrite_existing);
    e = probe_error(dir, quiet_position_in_block(1));
    EXPECT_EQ(e.kind(), TableErrorKind::foreign);
    EXPECT_NE(std::string(e.what()).find("material KMvK"), std::string::npos) << e.what();

    std::filesystem::copy_file(dir / "brazilian" / "KKvKK.wld", dir / "brazilian" / "KKvKK.dtw",
                               std::filesystem::copy_options::overwrite_existing);
    EXPECT_EQ(probe_error(dir, quiet_position_in_block(1)).kind(), TableErrorKind::foreign);

    write_file(dir / "brazilian" / "KKvKK.dtw", std::vector<std::byte>(4096, std::byte{'x'}));
    EXPECT_EQ(probe_error(dir, quiet_position_in_block(1)).kind(), TableErrorKind::foreign);
}

TEST_F(TableDamage, CApiGivesTheStatusAndTheFile) {
    const auto dir = fresh_copy();
    const auto path = dir / "brazilian" / "KKvKK.dtw";
    auto bytes = read_file(path);
    bytes[bytes.size() / 2] ^= std::byte{0xFF};
    write_file(path, bytes);
    dtb_tablebase* tb = nullptr;
    ASSERT_EQ(dtb_open("brazilian", dir.c_str(), 0, &tb), DTB_OK);
    // Probe every block: the damaged one reports, the others answer.
    const Index<8> index(kkkk);
    int corrupted = 0, fine = 0;
    for (std::uint64_t block = 0; block < index.size() >> 10; ++block) {  // KKvKK: one side
        const Position q = quiet_position_in_block(block);
        dtb_position d{};
        ASSERT_EQ(dtb_parse_fen(tb, draughts::to_fen(q).c_str(), &d), DTB_OK);
        dtb_value v{};
        const dtb_status s = dtb_probe_dtw(tb, &d, &v);
        if (s == DTB_OK) {
            ++fine;
        } else {
            ++corrupted;
            EXPECT_EQ(s, DTB_CORRUPTED_TABLE);
            EXPECT_NE(std::string(dtb_last_error()).find("KKvKK.dtw"), std::string::npos) << dtb_last_error();
        }
    }
    EXPECT_EQ(corrupted, 1);
    EXPECT_GT(fine, 100);
    dtb_close(tb);

    EXPECT_EQ(dtb_open("chess", dir.c_str(), 0, &tb), DTB_INVALID_ARGUMENT);
    EXPECT_NE(std::string(dtb_last_error()).find("unknown variant"), std::string::npos);
    EXPECT_EQ(dtb_open("brazilian", (dir / "nowhere").c_str(), 0, &tb), DTB_MISSING_TABLE);
    EXPECT_EQ(dtb_open(nullptr, dir.c_str(), 0, &tb), DTB_INVALID_ARGUMENT);
}

TEST_F(TableDamage, IllegalPositionsAreRefused) {
    dtb_tablebase* tb = nullptr;
    ASSERT_EQ(dtb_open("brazilian", (dir_->path() / "pristine").c_str(), 0, &tb), DTB_OK);
    dtb_value v{};
    dtb_position p{};
    p.white[0] = 1;  // square 1: White's own promotion row, but not a king
    p.black[0] = 1u << 20;
    p.white_to_move = 1;
    EXPECT_EQ(dtb_probe_dtw(tb, &p, &v), DTB_ILLEGAL_POSITION);
    p.white[0] = p.kings[0] = 1u << 5;
    p.black[0] = 1u << 5;  // two pieces on square 6
    EXPECT_EQ(dtb_probe_dtw(tb, &p, &v), DTB_ILLEGAL_POSITION);
    p.black[0] = std::uint64_t{1} << 40;  // square 41 of a 32-square board
    EXPECT_EQ(dtb_probe_dtw(tb, &p, &v), DTB_ILLEGAL_POSITION);
    EXPECT_NE(std::string(dtb_last_error()).find("beyond 32"), std::string::npos) << dtb_last_error();
    p.black[0] = 0;  // Black has no pieces but White is to move: the game is over
    EXPECT_EQ(dtb_probe_dtw(tb, &p, &v), DTB_ILLEGAL_POSITION);
    p.white_to_move = 0;  // Black to move without pieces: lost
    ASSERT_EQ(dtb_probe_dtw(tb, &p, &v), DTB_OK);
    EXPECT_EQ(v.wdl, DTB_LOSS);
    EXPECT_EQ(v.plies, 0);
    EXPECT_EQ(dtb_parse_fen(tb, "W:W33:B1", &p), DTB_INVALID_ARGUMENT);
    EXPECT_NE(std::string(dtb_last_error()).find("out of range"), std::string::npos) << dtb_last_error();
    dtb_close(tb);
}

}  // namespace
}  // namespace dtb

namespace dtb {
namespace {

// A file named after a material too large for a 64-bit index on the board
// does not stop the directory from opening; it is reported when used.
TEST(TableDirectory, FileOfAMaterialBeyondTheIndexIsReportedNotFatal) {
    const test::TemporaryDirectory dir("too-large");
    const auto tables = dir.path() / "international";
    std::filesystem::create_directories(tables);
    test::write_synthetic_tables<draughts::International>(tables, Material::parse("KvK"));
    std::ofstream(tables / "KKKKMMMMvKKKKMMMM.wld") << "not a table";
    const Prober<draughts::International> prober(dir.path());
    EXPECT_NO_THROW(prober.value(draughts::parse_fen<10>("W:WK1:BK50")));
    const int slot = prober.tables().find(Material::parse("KKKKMMMMvKKKKMMMM")).slot;
    ASSERT_GE(slot, 0);
    try {
        prober.tables().file(slot, TableKind::wld);
        FAIL() << "a file that is not a table was opened";
    } catch (const TableError& e) {
        EXPECT_EQ(e.kind(), TableErrorKind::foreign) << e.what();
    }
}

}  // namespace
}  // namespace dtb
