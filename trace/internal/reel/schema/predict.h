#pragma once
// Residual columns (trace.fbs, Bucket.predictors): the writer and the reader share this code, so that
// both predict and round the same way. Columns are unshuffled here (keys, or groups back to back), of
// equal length in every frame involved.
//
//   residuals(Predictor::Linear, current, previous, beforePrevious, bytes, 4, out);  // writer
//   restore(Predictor::Linear, inOut, previous, beforePrevious, bytes, 4);          // reader: in place
//
// A word is `word` bytes, little-endian (4 or 8); a tail of fewer bytes is XORed with the previous
// frame's. Arithmetic wraps, so every residual restores exactly whatever the bytes are (floats, handles,
// flags): a prediction that is poor costs ratio, never correctness.

#include <cstddef>
#include <cstdint>
#include <span>

namespace reel::schema {

enum class Predictor : uint8_t {
  Plain = 0,   // no residual: the plain column
  Delta = 1,   // x - a
  Linear = 2,  // x - (2a - b)
};
inline constexpr uint32_t kPredictorBits = 2;
inline constexpr uint8_t kPredictorMask = 3;

// Bits 0-1 keys, 2-3 payload, 4-5 aux (trace.fbs).
enum class PredictedColumn : uint8_t { Keys = 0, Payload = 1, Aux = 2 };
inline Predictor predictorOf(uint8_t predictors, PredictedColumn column) {
  return static_cast<Predictor>(predictors >> (kPredictorBits * static_cast<uint32_t>(column)) &
                                kPredictorMask);
}
inline uint8_t withPredictor(uint8_t predictors, PredictedColumn column, Predictor p) {
  return static_cast<uint8_t>(predictors | static_cast<uint8_t>(p)
                                               << (kPredictorBits * static_cast<uint32_t>(column)));
}

// `b` is read only for Linear. `word`: 4 or 8.
void residuals(Predictor p, const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word,
               uint8_t* out);
void restore(Predictor p, uint8_t* inOut, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word);

// Since 1.7 a residual column is stored sparse (trace.fbs, Bucket.keys_residual_segments ...): cut into
// segments of kResidualSegmentBytes (the last may be shorter), only the segments holding a byte other
// than zero are stored, back to back in order, and bit s % 64 of mask word s / 64 says segment s is
// stored. Most of a frame repeats the frame before, so most segments of its shuffled residuals are zero.
// The writer marks the first segment whatever it holds: a column stored so is never empty, so that a
// reader of format 1.5 finds keys without chain lengths in a repeated structure and refuses the frame.
//
//   std::vector<uint64_t> mask(residualMaskWords(bytes));
//   const size_t packedBytes = markResidualSegments(column, bytes, mask.data());     // writer
//   packResidualSegments(column, bytes, mask.data(), packed);
//   unpackResidualSegments(mask, packed, bytes, column);                               // reader
inline constexpr size_t kResidualSegmentBytes = 64;
inline constexpr size_t residualSegments(size_t bytes) {
  return (bytes + kResidualSegmentBytes - 1) / kResidualSegmentBytes;
}
inline constexpr size_t residualMaskWords(size_t bytes) {
  return (residualSegments(bytes) + 63) / 64;
}
// Fills `mask` (residualMaskWords(bytes) words: the first segment and those not all zero) and returns
// the bytes the marked segments take.
size_t markResidualSegments(const uint8_t* column, size_t bytes, uint64_t* mask);
// markResidualSegments for a column of `bytes` zero bytes, without reading one: only the first segment
// marked. Its packed bytes (the returned count) are all zero.
size_t markZeroResidualSegments(size_t bytes, uint64_t* mask);
// Copies the marked segments of `column` to `packed`, back to back.
void packResidualSegments(const uint8_t* column, size_t bytes, const uint64_t* mask, uint8_t* packed);
// The column of `bytes` bytes back into `column`, its unmarked segments zero. False, `column` then
// unspecified, when the mask and the packed bytes do not describe such a column: a mask of another
// length, a bit past the last segment, or packed bytes not the marked segments' size.
bool unpackResidualSegments(std::span<const uint64_t> mask, std::span<const uint8_t> packed, size_t bytes,
                            uint8_t* column);

// The better of Delta and Linear for this column (`b` may be null: Delta), judged on a sample of its
// words by the significant bits of their residuals.
Predictor choosePredictor(const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word);

}  // namespace reel::schema
