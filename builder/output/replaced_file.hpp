// A file written under a temporary name (FILE.tmp), flushed to disk and only
// then renamed into place: a process killed meanwhile never leaves a
// half-written file under the file's name (docs/design.md, "Table files and the
// build's directory"). The tables, the manifest and `dtb report` are written
// this way. Errors throw std::runtime_error naming the file and the reason.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace dtb {

class ReplacedFile {
public:
    // Creates FILE.tmp. `durable`: commit() flushes it to disk before the
    // rename, so that it survives the machine going down (the tables and the
    // manifest); a scratch file whose checksums tell a damaged one skips that.
    // `tag`, if not empty, names the temporary FILE.TAG.tmp, so that two
    // files meant for one name can be written at once (the one kept is
    // committed, the other dropped).
    explicit ReplacedFile(std::filesystem::path file, bool durable = true, std::string_view tag = {});
    ReplacedFile(const ReplacedFile&) = delete;
    ReplacedFile& operator=(const ReplacedFile&) = delete;
    ~ReplacedFile();  // not committed: the temporary file is removed

    void write(std::span<const std::byte> bytes);
    void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
    void seek(std::uint64_t offset);
    // What was written so far handed to the system, where another process
    // writing into the temporary file (write_into()) sees it.
    void flush();
    // Flushes to disk (if durable), closes and renames into place.
    void commit();

    // The temporary name of `file`, while a ReplacedFile writes it.
    static std::filesystem::path temporary_of(const std::filesystem::path& file, std::string_view tag = {}) {
        return file.string() + (tag.empty() ? "" : "." + std::string(tag)) + ".tmp";
    }

private:
    [[noreturn]] void fail(const char* what) const;

    std::filesystem::path final_;
    std::filesystem::path temporary_;
    std::FILE* file_ = nullptr;
    bool durable_ = true;
};

// Writes `pieces` (an offset and its bytes each) into `temporary`, the
// temporary file a ReplacedFile of another process or thread created and
// will commit, and flushes them to disk: a team's members write their own
// blocks of its table files this way. Throws std::runtime_error naming the
// file and the reason.
struct FilePiece {
    std::uint64_t offset;
    std::span<const std::byte> bytes;
};
void write_into(const std::filesystem::path& temporary, std::span<const FilePiece> pieces);

// Replaces `file` with `text`, whole or not at all.
void replace_file(const std::filesystem::path& file, std::string_view text);

}  // namespace dtb
