#include "panels/image_panel.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "model/packet_fields.h"
#include "model/texels.h"

namespace reel::viewer {
namespace {

const char* formatName(Format f) {
  const auto names = enumNames(Format{});
  const auto i = static_cast<size_t>(f);
  return i < names.size() ? names[i] : "?";
}

// `depth`: the readback is the target's depth (ImageReadback::depth).
std::string describe(const ImageSource& s, uint32_t texture, bool depth) {
  std::string out;
  switch (s.kind) {
    case ImageSource::Kind::Texture:
      return handleName(ResourceKind::Texture, s.handle);
    case ImageSource::Kind::TargetColor:
    case ImageSource::Kind::TargetDepth:
      out = handleName(ResourceKind::RenderTarget, s.handle) +
            (depth ? std::string(" depth") : " color " + std::to_string(s.attachment));
      break;
  }
  if (texture) out += " (" + handleName(ResourceKind::Texture, texture) + ")";
  return out;
}

}  // namespace

void ImagePanel::setAttachmentSpec(const std::string& spec) {
  if (spec.empty()) return;
  if (spec == "depth") {
    attachment_ = -1;
  } else {
    attachment_ = std::clamp(std::atoi(spec.c_str()), 0, 3);
  }
}

uint64_t ImagePanel::stopAfterPackets(const ViewerState& state) {
  const LoadedFrame* frame = state.frame();
  if (!frame || !state.selected || *state.selected >= frame->table.size()) return UINT64_MAX;
  return uint64_t{frame->table.sortedPosition(*state.selected)} + 1;
}

std::optional<ImageSource> ImagePanel::wantedSource(ViewerState& state) {
  const LoadedFrame* frame = state.frame();
  if (!frame) return std::nullopt;
  const auto& targets = state.passTargets.targets();
  if (!targetSpec_.empty()) {
    // The command line names a target of the frame: resolve it once the frame is there.
    if (const auto t = findTarget(targets, targetSpec_)) {
      targetChoice_ = static_cast<int>(std::find(targets.begin(), targets.end(), *t) - targets.begin());
      targetSpec_.clear();
    } else {
      targetError_ = "--target " + targetSpec_ + ": the frame renders into no such target";
      return std::nullopt;
    }
  }
  std::optional<uint32_t> target;
  if (targetChoice_ >= 0 && static_cast<size_t>(targetChoice_) < targets.size()) {
    target = targets[static_cast<size_t>(targetChoice_)];
  } else {
    const uint64_t stop = stopAfterPackets(state);
    const uint32_t position =
        stop == UINT64_MAX ? static_cast<uint32_t>(frame->table.size()) : static_cast<uint32_t>(stop - 1);
    target = state.passTargets.targetAt(position);
  }
  if (!target) {
    targetError_ = "the frame renders into no target (it has no BeginRenderPass)";
    return std::nullopt;
  }
  targetError_.clear();
  ImageSource s;
  s.kind = attachment_ < 0 ? ImageSource::Kind::TargetDepth : ImageSource::Kind::TargetColor;
  s.handle = *target;
  s.attachment = attachment_ < 0 ? 0 : static_cast<uint32_t>(attachment_);
  return s;
}

void ImagePanel::draw(ViewerState& state, const PanelLayout& layout) {
  report_ = {};
  const bool open = beginPanel("Image after command", layout, state, ImGuiWindowFlags_NoScrollbar);
  if (open && state.frame()) {
    drawControls(state);
    drawImage(state);
  } else if (!state.frame()) {
    ImGui::TextDisabled("no frame loaded");
  }
  ImGui::End();
}

void ImagePanel::drawControls(ViewerState& state) {
  const LoadedFrame* frame = state.frame();
  const auto& targets = state.passTargets.targets();
  // Target choice.
  std::string preview = "target: the selected command's";
  if (targetChoice_ >= 0 && static_cast<size_t>(targetChoice_) < targets.size()) {
    preview =
        "target: " + handleName(ResourceKind::RenderTarget, targets[static_cast<size_t>(targetChoice_)]);
  }
  ImGui::SetNextItemWidth(230);
  if (ImGui::BeginCombo("##target", preview.c_str())) {
    if (ImGui::Selectable("the selected command's target", targetChoice_ < 0)) targetChoice_ = -1;
    for (size_t i = 0; i < targets.size(); ++i) {
      const std::string label = std::to_string(i) + ": " + handleName(ResourceKind::RenderTarget, targets[i]);
      if (ImGui::Selectable(label.c_str(), targetChoice_ == static_cast<int>(i)))
        targetChoice_ = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const char* attachments[] = {"depth", "color 0", "color 1", "color 2", "color 3"};
  int attachmentItem = attachment_ + 1;
  ImGui::SetNextItemWidth(80);
  if (ImGui::Combo("##attachment", &attachmentItem, attachments, 5)) attachment_ = attachmentItem - 1;
  ImGui::SameLine();
  const char* zooms[] = {"fit", "1x", "2x", "4x", "8x"};
  ImGui::SetNextItemWidth(60);
  ImGui::Combo("##zoom", &zoomChoice_, zooms, 5);

  // Stepping in sorted order, whatever order the table shows.
  const uint64_t stop = stopAfterPackets(state);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left) && frame->table.size()) {
    const uint32_t p = stop == UINT64_MAX ? static_cast<uint32_t>(frame->table.size() - 1)
                                          : static_cast<uint32_t>(std::max<uint64_t>(stop, 2) - 2);
    state.selectRow(frame->table.sortedOrder()[p], true);
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right) && frame->table.size()) {
    const uint32_t p =
        stop == UINT64_MAX ? 0u : static_cast<uint32_t>(std::min<uint64_t>(stop, frame->table.size() - 1));
    state.selectRow(frame->table.sortedOrder()[p], true);
  }
  if (stop == UINT64_MAX) {
    ImGui::Text("after the whole frame %" PRIu64 " (%s packets)", frame->record.number,
                formatCount(frame->table.size()).c_str());
  } else {
    const trace::PacketRecord p =
        packetOf(frame->record, frame->table.row(frame->table.sortedOrder()[stop - 1]));
    const trace::CommandDesc* desc = state.doc->header().command(p.type);
    ImGui::Text("after sorted command #%" PRIu64 " (%s) of frame %" PRIu64, stop - 1,
                desc ? std::string(desc->name).c_str() : "?", frame->record.number);
  }

  if (state.replay) {
    const ReplayWorker::Status status = state.replay->status();
    if (!status.error.empty()) {
      errorText("replay: " + status.error);
    } else if (!status.ready) {
      ImGui::TextDisabled("starting the replay device...");
    } else {
      ImGui::TextDisabled("device: %s", status.device.c_str());
      if (!status.deviceNote.empty()) errorText(status.deviceNote);
    }
  }
  if (state.lastReplay) {
    if (!state.lastReplay->outcome) {
      errorText("replay failed: " + state.lastReplay->outcome.error().message);
    } else {
      const ReplayOutcome& o = state.lastReplay->outcome.value();
      ImGui::TextDisabled(
          "replay %.1f ms (%s, %u frames%s)", o.milliseconds, replayPathName(o.path), o.framesReplayed,
          o.checkpointBytes ? (", checkpoint " + formatBytes(o.checkpointBytes)).c_str() : "");
      if (!o.deviceErrors.empty()) {
        const std::string title = std::to_string(o.deviceErrors.size()) + " device errors";
        if (ImGui::TreeNode(title.c_str())) {
          for (const std::string& e : o.deviceErrors) errorText(e);
          ImGui::TreePop();
        }
      }
      for (const std::string& m : o.sortMismatches) errorText(m);
    }
  }
}

void ImagePanel::drawImage(ViewerState& state) {
  const std::optional<ImageSource> source = wantedSource(state);
  if (!source) {
    errorText(targetError_);
    report_.error = targetError_;
    return;
  }
  bool current = false;
  const ImageReadback* readback = state.readbackFor(*source, &current);
  if (readback &&
      (state.replayGeneration != uploadedGeneration_ || !uploadedSource_ || !(*uploadedSource_ == *source))) {
    uploadedGeneration_ = state.replayGeneration;
    uploadedSource_ = *source;
    imageError_.clear();
    if (!readback->error.empty()) {
      imageError_ = readback->error;
      texture_.reset();
      image_ = {};
    } else if (auto converted = texelsToImage(readback->texels, readback->desc.width, readback->desc.height,
                                              readback->desc.format)) {
      image_ = std::move(converted.value());
      texture_.upload(image_);
    } else {
      imageError_ = converted.error().message;
      texture_.reset();
      image_ = {};
    }
  }
  const bool matches = readback && uploadedSource_ && *uploadedSource_ == *source;
  report_.source = describe(*source, readback ? readback->texture : 0,
                            readback ? readback->depth : source->kind == ImageSource::Kind::TargetDepth);
  report_.stopAfterPackets = stopAfterPackets(state);
  report_.current = current && matches;
  if (!matches) {
    ImGui::TextDisabled("replaying...");
    return;
  }
  ImGui::Text("%s  %ux%u %s%s", report_.source.c_str(), readback->desc.width, readback->desc.height,
              formatName(readback->desc.format), current ? "" : "  (replaying...)");
  if (!imageError_.empty()) {
    errorText(imageError_);
    report_.error = imageError_;
    return;
  }
  if (!texture_.valid()) return;

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  int zoom = 1;
  if (zoomChoice_ == 0) {
    const int zx = static_cast<int>(avail.x) / static_cast<int>(image_.width);
    const int zy = static_cast<int>(avail.y) / static_cast<int>(image_.height);
    zoom = std::max(1, std::min(zx, zy));
  } else {
    zoom = 1 << (zoomChoice_ - 1);
  }
  const ImVec2 size(static_cast<float>(image_.width * static_cast<uint32_t>(zoom)),
                    static_cast<float>(image_.height * static_cast<uint32_t>(zoom)));
  ImGui::BeginChild("image", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  // Whole-pixel origin: with nearest filtering each screen pixel is then one image pixel.
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  const ImVec2 snapped(std::floor(cursor.x), std::floor(cursor.y));
  ImGui::SetCursorScreenPos(snapped);
  ImGui::Image(texture_.imguiId(), size);
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int px = static_cast<int>((m.x - snapped.x) / static_cast<float>(zoom));
    const int py = static_cast<int>((m.y - snapped.y) / static_cast<float>(zoom));
    if (px >= 0 && py >= 0 && px < static_cast<int>(image_.width) && py < static_cast<int>(image_.height)) {
      const uint8_t* p = image_.pixel(static_cast<uint32_t>(px), static_cast<uint32_t>(py));
      ImGui::SetTooltip("(%d, %d)  rgba %u %u %u %u", px, py, p[0], p[1], p[2], p[3]);
    }
  }
  ImGui::EndChild();
  report_.shown = true;
  report_.x = snapped.x;
  report_.y = snapped.y;
  report_.width = static_cast<int>(image_.width);
  report_.height = static_cast<int>(image_.height);
  report_.zoom = zoom;
}

}  // namespace reel::viewer
