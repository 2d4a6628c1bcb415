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
#include <string_view>

namespace dtb {

class ReplacedFile {
public:
    explicit ReplacedFile(std::filesystem::path file);  // creates FILE.tmp
    ReplacedFile(const ReplacedFile&) = delete;
    ReplacedFile& operator=(const ReplacedFile&) = delete;
    ~ReplacedFile();  // not committed: the temporary file is removed

    void write(std::span<const std::byte> bytes);
    void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
    void seek(std::uint64_t offset);
    // Flushes to disk, closes and renames into place.
    void commit();

private:
    [[noreturn]] void fail(const char* what) const;

    std::filesystem::path final_;
    std::filesystem::path temporary_;
    std::FILE* file_ = nullptr;
};

// Replaces `file` with `text`, whole or not at all.
void replace_file(const std::filesystem::path& file, std::string_view text);

}  // namespace dtb
