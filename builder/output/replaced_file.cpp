#include "builder/output/replaced_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace dtb {

ReplacedFile::ReplacedFile(std::filesystem::path file, bool durable, std::string_view tag)
    : final_(std::move(file)), temporary_(temporary_of(final_, tag)), durable_(durable) {
    file_ = std::fopen(temporary_.c_str(), "wb");
    if (!file_)
        throw std::runtime_error("cannot create " + temporary_.string() + ": " + std::strerror(errno) +
                                 " (check that its folder exists and is writable)");
}

ReplacedFile::~ReplacedFile() {
    if (!file_) return;
    std::fclose(file_);
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
}

void ReplacedFile::write(std::span<const std::byte> bytes) {
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail("cannot write");
}

void ReplacedFile::seek(std::uint64_t offset) {
    if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) fail("cannot seek in");
}

void ReplacedFile::flush() {
    if (std::fflush(file_) != 0) fail("cannot write");
}

void ReplacedFile::commit() {
    if (std::fflush(file_) != 0 || (durable_ && fsync(fileno(file_)) != 0)) fail("cannot flush");
    if (std::fclose(std::exchange(file_, nullptr)) != 0) {
        const std::string reason = std::strerror(errno);
        std::error_code ignored;
        std::filesystem::remove(temporary_, ignored);
        throw std::runtime_error("cannot close " + temporary_.string() + ": " + reason);
    }
    std::error_code error;
    std::filesystem::rename(temporary_, final_, error);
    if (error)
        throw std::runtime_error("cannot rename " + temporary_.string() + " to " + final_.string() + ": " +
                                 error.message());
}

void ReplacedFile::fail(const char* what) const {
    throw std::runtime_error(std::string(what) + " " + temporary_.string() + ": " + std::strerror(errno));
}

void write_into(const std::filesystem::path& temporary, std::span<const FilePiece> pieces) {
    const auto fail = [&](const char* what) {
        throw std::runtime_error(std::string(what) + " " + temporary.string() + ": " + std::strerror(errno));
    };
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open");
    for (const FilePiece& piece : pieces)
        for (std::size_t done = 0; done < piece.bytes.size();) {
            const ssize_t n = ::pwrite(fd, piece.bytes.data() + done, piece.bytes.size() - done,
                                       static_cast<off_t>(piece.offset + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                const int saved = errno;
                ::close(fd);
                errno = saved;
                fail("cannot write");
            }
            done += static_cast<std::size_t>(n);
        }
    if (::fsync(fd) != 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
        fail("cannot flush");
    }
    if (::close(fd) != 0) fail("cannot close");
}

void replace_file(const std::filesystem::path& file, std::string_view text) {
    ReplacedFile out(file);
    out.write(text);
    out.commit();
}

}  // namespace dtb
