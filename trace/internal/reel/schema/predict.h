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

// The better of Delta and Linear for this column (`b` may be null: Delta), judged on a sample of its
// words by the significant bits of their residuals.
Predictor choosePredictor(const uint8_t* x, const uint8_t* a, const uint8_t* b, size_t bytes, uint32_t word);

}  // namespace reel::schema
