#pragma once
// The little vector math the sample needs. Matrices are column-major (GLSL's default for uniform and
// push-constant blocks); clip space is Vulkan's: y down, depth 0 (near) to 1 (far).

#include <cmath>
#include <cstdint>

namespace reel::samples {

struct Vec3 {
  float x = 0, y = 0, z = 0;
  friend Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
};
inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline Vec3 normalize(Vec3 v) {
  return v * (1.0f / std::sqrt(dot(v, v)));
}

struct Vec4 {
  float x = 0, y = 0, z = 0, w = 0;
};

struct Mat4 {
  float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // m[column * 4 + row]
  float& at(int row, int column) { return m[column * 4 + row]; }
  float at(int row, int column) const { return m[column * 4 + row]; }

  friend Mat4 operator*(const Mat4& a, const Mat4& b) {
    Mat4 r;
    for (int c = 0; c < 4; ++c) {
      for (int row = 0; row < 4; ++row) {
        float s = 0;
        for (int k = 0; k < 4; ++k) s += a.at(row, k) * b.at(k, c);
        r.at(row, c) = s;
      }
    }
    return r;
  }
  Vec4 transform(Vec4 v) const {
    return {at(0, 0) * v.x + at(0, 1) * v.y + at(0, 2) * v.z + at(0, 3) * v.w,
            at(1, 0) * v.x + at(1, 1) * v.y + at(1, 2) * v.z + at(1, 3) * v.w,
            at(2, 0) * v.x + at(2, 1) * v.y + at(2, 2) * v.z + at(2, 3) * v.w,
            at(3, 0) * v.x + at(3, 1) * v.y + at(3, 2) * v.z + at(3, 3) * v.w};
  }

  static Mat4 translation(Vec3 t) {
    Mat4 r;
    r.at(0, 3) = t.x;
    r.at(1, 3) = t.y;
    r.at(2, 3) = t.z;
    return r;
  }
  static Mat4 scale(float s) {
    Mat4 r;
    r.at(0, 0) = r.at(1, 1) = r.at(2, 2) = s;
    return r;
  }
  // Rotation by `angle` radians around a unit axis.
  static Mat4 rotation(Vec3 axis, float angle) {
    const float c = std::cos(angle), s = std::sin(angle), t = 1 - c;
    Mat4 r;
    r.at(0, 0) = t * axis.x * axis.x + c;
    r.at(0, 1) = t * axis.x * axis.y - s * axis.z;
    r.at(0, 2) = t * axis.x * axis.z + s * axis.y;
    r.at(1, 0) = t * axis.x * axis.y + s * axis.z;
    r.at(1, 1) = t * axis.y * axis.y + c;
    r.at(1, 2) = t * axis.y * axis.z - s * axis.x;
    r.at(2, 0) = t * axis.x * axis.z - s * axis.y;
    r.at(2, 1) = t * axis.y * axis.z + s * axis.x;
    r.at(2, 2) = t * axis.z * axis.z + c;
    return r;
  }
  // Right-handed view looking from `eye` at `target`; the camera looks down its -z.
  static Mat4 lookAt(Vec3 eye, Vec3 target, Vec3 up) {
    const Vec3 f = normalize(target - eye), s = normalize(cross(f, up)), u = cross(s, f);
    Mat4 r;
    r.at(0, 0) = s.x, r.at(0, 1) = s.y, r.at(0, 2) = s.z, r.at(0, 3) = -dot(s, eye);
    r.at(1, 0) = u.x, r.at(1, 1) = u.y, r.at(1, 2) = u.z, r.at(1, 3) = -dot(u, eye);
    r.at(2, 0) = -f.x, r.at(2, 1) = -f.y, r.at(2, 2) = -f.z, r.at(2, 3) = dot(f, eye);
    return r;
  }
  // Vulkan clip space: y down (so world +y is up on screen), depth 0..1.
  static Mat4 perspective(float fovY, float aspect, float nearZ, float farZ) {
    const float f = 1.0f / std::tan(fovY / 2);
    Mat4 r;
    r.at(0, 0) = f / aspect;
    r.at(1, 1) = -f;
    r.at(2, 2) = farZ / (nearZ - farZ);
    r.at(2, 3) = nearZ * farZ / (nearZ - farZ);
    r.at(3, 2) = -1;
    r.at(3, 3) = 0;
    return r;
  }
};

// Deterministic pseudo-random numbers from an index (a hash, not a stream: any object's values can be
// computed on any thread in any order).
inline uint32_t hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352d;
  x ^= x >> 15;
  x *= 0x846ca68b;
  x ^= x >> 16;
  return x;
}
inline float hash01(uint32_t x, uint32_t salt = 0) {
  return float(hash(x * 0x9e3779b9u + salt) >> 8) / 16777216.0f;
}

}  // namespace reel::samples
