// One table file opened for reading: the file mapped into memory, its header
// and offsets checked (docs/format.md), blocks checked and decompressed on
// demand. Every problem is a TableError naming the file; nothing is trusted
// before its checksum holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "probe/table_format.hpp"

namespace dtb {

class TableFile {
public:
    // What the caller expects to find; a mismatch is a TableErrorKind::foreign error.
    struct Expected {
        std::string_view variant;
        Material material;
        TableKind kind;
    };

    // Maps the file and checks its header, offsets and table checksum.
    static TableFile open(const std::filesystem::path& file, const Expected& expected);
    // The same checks on bytes in memory (tests and the fuzz target); `name` is for messages.
    static TableFile from_bytes(std::vector<std::byte> bytes, const std::filesystem::path& name);

    TableFile(TableFile&&) noexcept;
    TableFile& operator=(TableFile&&) noexcept;
    ~TableFile();

    const TableHeader& header() const noexcept { return header_; }
    const std::filesystem::path& path() const noexcept { return path_; }
    // The checksum over the header, offsets and block checksums (docs/format.md):
    // equal checksums mean the same table, whatever its file name or date.
    std::uint64_t table_checksum() const noexcept;

    // Checks block `block`'s checksum and decompresses it into `out`, which
    // must hold header().block_bytes(block) bytes. Thread safe.
    void read_block(std::uint64_t block, std::span<std::byte> out) const;

    // Reads every block: the first problem found is thrown.
    void verify() const;

private:
    struct Bytes;
    TableFile(std::unique_ptr<Bytes> bytes, const std::filesystem::path& path);

    std::unique_ptr<Bytes> bytes_;
    std::filesystem::path path_;
    TableHeader header_;
    std::span<const std::byte> offsets_;
    std::span<const std::byte> checksums_;
};

}  // namespace dtb
