#version 450
// Post chain, pass 2 (half resolution): the vertical half of the bloom blur.
layout(set = 0, binding = 4) uniform sampler2D source;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

const float kWeights[5] = float[](0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216);

void main() {
  float texel = 1.0 / float(textureSize(source, 0).y);
  vec3 sum = texture(source, uv).rgb * kWeights[0];
  for (int i = 1; i < 5; ++i) {
    vec2 offset = vec2(0.0, texel * float(i));
    sum += (texture(source, uv + offset).rgb + texture(source, uv - offset).rgb) * kWeights[i];
  }
  color = vec4(sum, 1.0);
}
