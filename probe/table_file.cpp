#include "probe/table_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/zstd_frame.hpp"

namespace dtb {

// The file's bytes: a read-only mapping, or a buffer for from_bytes.
struct TableFile::Bytes {
    std::span<const std::byte> view;
    void* mapping = nullptr;
    std::vector<std::byte> buffer;

    ~Bytes() {
        if (mapping) munmap(mapping, view.size());
    }
};

TableFile::TableFile(std::unique_ptr<Bytes> bytes, const std::filesystem::path& path)
    : bytes_(std::move(bytes)), path_(path) {
    DecodedTable t = decode_table(bytes_->view, path_);
    header_ = std::move(t.header);
    offsets_ = t.offsets;
    checksums_ = t.checksums;
}

std::uint64_t TableFile::table_checksum() const noexcept {
    return load_u64(checksums_.data() + checksums_.size());  // it follows the block checksums
}

TableFile::TableFile(TableFile&&) noexcept = default;
TableFile& TableFile::operator=(TableFile&&) noexcept = default;
TableFile::~TableFile() = default;

TableFile TableFile::open(const std::filesystem::path& file, const Expected& expected) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        throw TableError(error == ENOENT ? TableErrorKind::missing : TableErrorKind::io, file,
                         std::strerror(error));
    }
    auto bytes = std::make_unique<Bytes>();
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int error = errno;
        ::close(fd);
        throw TableError(TableErrorKind::io, file, S_ISREG(st.st_mode) ? std::strerror(error) : "not a regular file");
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > 0) {
        void* m = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            const int error = errno;
            ::close(fd);
            throw TableError(TableErrorKind::io, file, std::string("cannot map the file: ") + std::strerror(error));
        }
        bytes->mapping = m;
        bytes->view = {static_cast<const std::byte*>(m), size};
    }
    ::close(fd);
    TableFile table(std::move(bytes), file);
    const TableHeader& h = table.header();
    if (h.variant != expected.variant)
        throw TableError(TableErrorKind::foreign, file,
                         "a table of variant " + h.variant + ", expected " + std::string(expected.variant));
    if (h.material != expected.material)
        throw TableError(TableErrorKind::foreign, file,
                         "a table of material " + h.material.name() + ", expected " + expected.material.name());
    if (h.kind != expected.kind)
        throw TableError(TableErrorKind::foreign, file,
                         "a ." + std::string(extension(h.kind)) + " table, expected ." +
                             std::string(extension(expected.kind)));
    return table;
}

TableFile TableFile::from_bytes(std::vector<std::byte> buffer, const std::filesystem::path& name) {
    auto bytes = std::make_unique<Bytes>();
    bytes->buffer = std::move(buffer);
    bytes->view = bytes->buffer;
    return TableFile(std::move(bytes), name);
}

void TableFile::read_block(std::uint64_t block, std::span<std::byte> out) const {
    const std::uint64_t begin = load_u64(offsets_.data() + 8 * block);
    const std::uint64_t end = load_u64(offsets_.data() + 8 * (block + 1));
    const std::span<const std::byte> compressed = bytes_->view.subspan(begin, end - begin);
    const std::string where = "block " + std::to_string(block);
    if (checksum(compressed) != load_u64(checksums_.data() + 8 * block))
        throw TableError(TableErrorKind::corrupted, path_, "the checksum of " + where + " does not match");
    // The checksum held: a failure below means the writer wrote a bad block.
    if (const std::string wrong = zstd_decompress(compressed, out); !wrong.empty())
        throw TableError(TableErrorKind::corrupted, path_, where + " " + wrong);
}

void TableFile::verify() const {
    std::vector<std::byte> buffer;
    for (std::uint64_t b = 0; b < header_.block_count(); ++b) {
        buffer.resize(header_.block_bytes(b));
        read_block(b, buffer);
        if (header_.kind != TableKind::wld) continue;
        // Every written 2-bit value is 0, 1 or 2; unused bits of the last byte are zero.
        const std::uint64_t values = header_.block_values(b);
        for (std::uint64_t k = 0; k < values; ++k)
            if (value_at(buffer, 2, k) == 3)
                throw TableError(TableErrorKind::corrupted, path_,
                                 "block " + std::to_string(b) + " holds an unwritten value at position " +
                                     std::to_string(k));
    }
}

}  // namespace dtb
