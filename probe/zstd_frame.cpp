#include "probe/zstd_frame.hpp"

#include <stdexcept>

#include <zstd.h>

namespace dtb {

std::vector<std::byte> zstd_compress(std::span<const std::byte> raw, int level) {
    struct Context {
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        ~Context() { ZSTD_freeCCtx(cctx); }
    };
    thread_local Context context;
    // Compressed into a buffer of the thread's, kept from call to call, and
    // copied out at its size: no new zeroed buffer of the bound each call.
    thread_local std::vector<std::byte> bound;
    const std::size_t most = ZSTD_compressBound(raw.size());
    if (bound.size() < most) bound.resize(most);
    const std::size_t n = ZSTD_compressCCtx(context.cctx, bound.data(), most, raw.data(), raw.size(), level);
    if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    return std::vector<std::byte>(bound.begin(), bound.begin() + static_cast<std::ptrdiff_t>(n));
}

std::string zstd_decompress(std::span<const std::byte> frame, std::span<std::byte> out) {
    struct Context {
        ZSTD_DCtx* dctx = ZSTD_createDCtx();
        ~Context() { ZSTD_freeDCtx(dctx); }
    };
    thread_local Context context;
    const unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (content != out.size() || ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
        return "is not one zstd frame of " + std::to_string(out.size()) + " bytes";
    const std::size_t n = ZSTD_decompressDCtx(context.dctx, out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != out.size())
        return std::string("does not decompress: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
    return {};
}

}  // namespace dtb
