#include "panels/resources_panel.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "model/packet_fields.h"
#include "model/texels.h"
#include "panels/image_panel.h"

namespace reel::viewer {
namespace {

std::string brief(const trace::TraceHeader& header, const ResourceInfo& r) {
  const trace::CommandDesc* desc = header.command(r.createType);
  if (!desc) return {};
  return formatSummary(resourceSummaryOf(r.kind), desc->fields, r.create.data(), r.create.size());
}

}  // namespace

const ResourceInfo* ResourcesPanel::selectedInfo(const ViewerState& state) const {
  if (!state.selectedResource) return nullptr;
  for (const ResourceInfo& r : alive_) {
    if (r.kind == state.selectedResource->kind && r.handle == state.selectedResource->handle) return &r;
  }
  return nullptr;
}

void ResourcesPanel::refresh(ViewerState& state) {
  if (!state.scanner || !state.frame()) {
    alive_.clear();
    return;
  }
  const size_t scanned = state.scanner->scanned();
  if (aliveFrame_ != state.frameNumber() || aliveScanned_ != scanned) {
    aliveFrame_ = state.frameNumber();
    aliveScanned_ = scanned;
    alive_ = state.scanner->aliveAt(state.frameNumber());
  }
  // --resource: "texture#3.1", or "texture#3" for whichever generation of slot 3 is alive.
  if (!state.resourceSpec.empty() && (state.scanner->done() || scanned > state.frame()->index)) {
    for (const ResourceInfo& r : alive_) {
      const std::string full = handleName(r.kind, r.handle);
      if (state.resourceSpec == full || state.resourceSpec == full.substr(0, full.find('.'))) {
        state.showResource({r.kind, r.handle});
        state.resourceSpec.clear();
        break;
      }
    }
    if (!state.resourceSpec.empty()) {
      report_.error = "--resource " + state.resourceSpec + ": nothing of that name is alive in frame " +
                      std::to_string(state.frameNumber());
      resourceError_ = report_.error;
      state.resourceSpec.clear();
    }
  }
}

bool ResourcesPanel::settled(const ViewerState& state) const {
  if (!state.resourceSpec.empty()) return false;
  for (const Report::Image& image : report_.images) {
    if (!image.current) return false;
  }
  return true;
}

std::vector<ImageSource> ResourcesPanel::wantedImages(ViewerState& state) {
  refresh(state);
  const ResourceInfo* r = selectedInfo(state);
  return r ? imagesOf(state, *r) : std::vector<ImageSource>{};
}

std::vector<ImageSource> ResourcesPanel::imagesOf(const ViewerState& state,
                                                  const ResourceInfo& resource) const {
  const ResourceInfo* r = &resource;
  std::vector<ImageSource> out;
  if (resourceContentsOf(r->kind) == ResourceContents::Mips) {
    out.push_back({ImageSource::Kind::Texture, r->handle, 0});
  } else if (r->kind == ResourceKind::RenderTarget) {
    const trace::CommandDesc* desc = state.doc->header().command(r->createType);
    const uint64_t colors =
        desc ? std::min<uint64_t>(readField(desc->fields, r->create, "desc.colorCount").value_or(0), 4) : 0;
    for (uint32_t i = 0; i < colors; ++i) out.push_back({ImageSource::Kind::TargetColor, r->handle, i});
    if (desc && readField(desc->fields, r->create, "desc.depth").value_or(0)) {
      out.push_back({ImageSource::Kind::TargetDepth, r->handle, 0});
    }
  }
  return out;
}

std::vector<uint32_t> ResourcesPanel::wantedBuffers(ViewerState& state) {
  refresh(state);
  const ResourceInfo* r = selectedInfo(state);
  if (r && resourceContentsOf(r->kind) == ResourceContents::Bytes) return {r->handle};
  return {};
}

void ResourcesPanel::draw(ViewerState& state, const PanelLayout& layout) {
  if (state.revealResource) {
    ImGui::SetNextWindowFocus();
    kindFilter_ = -1;
  }
  report_ = {};
  report_.error = resourceError_;
  if (!beginPanel("Resources", layout, state) || !state.frame()) {
    if (!state.frame()) ImGui::TextDisabled("no frame loaded");
    ImGui::End();
    return;
  }
  refresh(state);
  if (!resourceError_.empty()) errorText(resourceError_);
  if (state.scanner && state.scanner->scanned() <= state.frame()->index) {
    ImGui::TextDisabled("reading the frames up to this one: %zu of %zu", state.scanner->scanned(),
                        state.frame()->index + 1);
  }
  const float listWidth = std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.4f);
  ImGui::BeginChild("list", ImVec2(listWidth, 0), true);
  drawList(state);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("details", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  drawDetails(state);
  ImGui::EndChild();
  ImGui::End();
}

void ResourcesPanel::drawList(ViewerState& state) {
  const char* kinds[] = {"all kinds", "buffers",   "textures",      "samplers",
                         "shaders",   "pipelines", "render targets"};
  int item = kindFilter_ + 1;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::Combo("##kind", &item, kinds, 7)) kindFilter_ = item - 1;
  ImGui::TextDisabled("%zu alive in frame %" PRIu64, alive_.size(), state.frameNumber());
  const trace::TraceHeader& header = state.doc->header();
  for (const ResourceInfo& r : alive_) {
    if (kindFilter_ >= 0 && static_cast<int>(r.kind) != kindFilter_) continue;
    const bool isSelected = state.selectedResource && state.selectedResource->kind == r.kind &&
                            state.selectedResource->handle == r.handle;
    const std::string label = handleName(r.kind, r.handle) + "  " + brief(header, r);
    if (ImGui::Selectable(label.c_str(), isSelected)) state.selectedResource = ResourceRef{r.kind, r.handle};
    if (isSelected && state.revealResource) ImGui::SetScrollHereY(0.5f);
  }
  state.revealResource = false;
}

void ResourcesPanel::drawDetails(ViewerState& state) {
  const ResourceInfo* r = selectedInfo(state);
  if (!r) {
    if (state.selectedResource) {
      ImGui::TextDisabled("%s is not alive in frame %" PRIu64,
                          handleName(state.selectedResource->kind, state.selectedResource->handle).c_str(),
                          state.frameNumber());
    } else {
      ImGui::TextDisabled("select a resource");
    }
    return;
  }
  const trace::TraceHeader& header = state.doc->header();
  report_.resource = handleName(r->kind, r->handle);
  ImGui::Text("%s", report_.resource.c_str());
  if (r->atCaptureStart) {
    ImGui::TextDisabled("alive at the capture start%s",
                        r->readbackError.empty() ? "" : "; its contents could not be read:");
    if (!r->readbackError.empty()) errorText(r->readbackError);
  } else {
    ImGui::TextDisabled("created in frame %" PRIu64, r->createdFrame);
  }
  if (r->destroyedFrame) ImGui::TextDisabled("destroyed at the end of frame %" PRIu64, *r->destroyedFrame);
  if (r->writes) ImGui::TextDisabled("%u write requests", r->writes);
  if (r->dataBytes) {
    ImGui::TextDisabled("%s of %s recorded", formatBytes(r->dataBytes).c_str(),
                        resourceContentsOf(r->kind) == ResourceContents::CreateData ? "code" : "contents");
  }
  auto descriptor = [&] {
    if (const trace::CommandDesc* desc = header.command(r->createType)) {
      fieldTable("desc", state, desc->fields, r->create);
    }
  };
  // Images first (they are what one looks for), then the descriptor; a buffer's hex dump last.
  const uint64_t stop = ImagePanel::stopAfterPackets(state);
  const std::vector<ImageSource> sources = imagesOf(state, *r);  // not wantedImages(): it refreshes alive_
  if (!sources.empty()) {
    ImGui::Separator();
    if (stop == UINT64_MAX) {
      ImGui::TextDisabled("contents after the whole frame");
    } else {
      ImGui::TextDisabled("contents after sorted command #%" PRIu64, stop - 1);
    }
    if (shown_.size() < sources.size()) shown_.resize(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) drawReadback(state, sources[i], i);
    ImGui::Separator();
    descriptor();
  } else if (resourceContentsOf(r->kind) != ResourceContents::Bytes) {
    descriptor();
  } else {
    descriptor();
    ImGui::Separator();
    bool current = false;
    const BufferReadback* b = state.bufferReadbackFor(r->handle, &current);
    if (!b) {
      ImGui::TextDisabled("replaying...");
    } else if (!b->error.empty()) {
      errorText(b->error);
    } else {
      ImGui::TextDisabled("contents %s%s",
                          stop == UINT64_MAX ? "after the whole frame" : "after the selected command",
                          current ? "" : " (replaying...)");
      ImGuiListClipper clipper;
      clipper.Begin(static_cast<int>(hexLineCount(b->bytes.size())));
      while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
          ImGui::TextUnformatted(hexLine(b->bytes, static_cast<size_t>(i)).c_str());
        }
      }
    }
  }
}

void ResourcesPanel::drawReadback(ViewerState& state, const ImageSource& source, size_t slot) {
  Shown& shown = shown_[slot];
  bool current = false;
  const ImageReadback* readback = state.readbackFor(source, &current);
  const char* what = source.kind == ImageSource::Kind::TargetDepth   ? "depth"
                     : source.kind == ImageSource::Kind::TargetColor ? "color"
                                                                     : "mip 0";
  if (!readback) {
    ImGui::TextDisabled("%s: replaying...", what);
    report_.images.push_back({what, 0, 0, 0, 0, 0, false});
    return;
  }
  if (shown.generation != state.replayGeneration || !shown.source || !(*shown.source == source)) {
    shown.generation = state.replayGeneration;
    shown.source = source;
    shown.error = readback->error;
    if (shown.error.empty()) {
      auto converted =
          texelsToImage(readback->texels, readback->desc.width, readback->desc.height, readback->desc.format);
      if (converted) {
        shown.texture.upload(converted.value());
      } else {
        shown.error = converted.error().message;
      }
    }
    if (!shown.error.empty()) shown.texture.reset();
  }
  const std::string name = handleName(ResourceKind::Texture, readback->texture);
  ImGui::Text("%s %s%s", what, name.c_str(), current ? "" : " (replaying...)");
  Report::Image image;
  image.source = std::string(what) + " " + name;
  image.current = current;
  if (!shown.error.empty()) {
    errorText(shown.error);
    report_.images.push_back(image);
    return;
  }
  if (!shown.texture.valid()) return;
  // Fitted to the panel's width: an integer zoom (up to 4) when the image fits, so that its pixels show
  // as they are, else scaled down.
  const float avail = std::max(32.0f, ImGui::GetContentRegionAvail().x);
  const float w = static_cast<float>(shown.texture.width()), h = static_cast<float>(shown.texture.height());
  const float zoom = w <= avail ? std::min(4.0f, std::floor(avail / w)) : avail / w;
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(ImVec2(std::floor(cursor.x), std::floor(cursor.y)));
  image.x = std::floor(cursor.x);
  image.y = std::floor(cursor.y);
  ImGui::Image(shown.texture.imguiId(), ImVec2(w * zoom, h * zoom));
  image.width = static_cast<int>(shown.texture.width());
  image.height = static_cast<int>(shown.texture.height());
  image.zoom = w <= avail ? static_cast<int>(zoom) : 0;
  report_.images.push_back(image);
}

}  // namespace reel::viewer
