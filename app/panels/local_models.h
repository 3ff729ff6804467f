// The models already on this computer, as the start page and File ▸ Models on this computer
// list them: where this process looks (its environment: $HF_HUB_CACHE, $LLAMA_CACHE,
// $OLLAMA_MODELS, …; model::modelPlaces), and how one entry reads — one line with its name,
// type, quantization, size and source, a tool tip with the reason it cannot be opened or what
// it is, then its path.
#pragma once

#include <filesystem>
#include <vector>

#include <QString>

#include "attnscope/model/model_discovery.h"

namespace attnscope::app {

// The places model::modelPlaces names for this process's environment and home folder.
model::ModelPlaces localModelPlaces();

// The Hugging Face hub cache folder this process would use ($HF_HUB_CACHE, $HF_HOME/hub, ...).
std::filesystem::path huggingFaceHubDir();

// Every model in localModelPlaces(): Hugging Face, then llama.cpp, then Ollama.
std::vector<model::FoundModel> findLocalModels();

// "qwen2.5:7b · qwen2 · Q4_K_M · 4.4 GiB · Ollama"; a Hugging Face folder has no size or
// quantization: "google/bert_tiny · bert · Hugging Face".
QString localModelLabel(const model::FoundModel& m);
// The label without the name: "qwen2 · Q4_K_M · 4.4 GiB · Ollama".
QString localModelDetails(const model::FoundModel& m);

// Its name, then why it cannot be opened or its title and parameter count, then its path.
QString localModelToolTip(const model::FoundModel& m);

// What to call the model at `path` where one name stands for it (the window title, the start
// page's "Back to …"): an Ollama blob's tag as `ollama run` takes it ("llama3.2:3b",
// model::ollamaModelName) rather than its sha256-<hex> file name, else the file or folder name.
QString modelTitle(const QString& path);

// A recent model in the start page's list and File ▸ Open recent: an Ollama blob's tag and
// source ("llama3.2:3b · Ollama"), else the path.
QString recentModelLabel(const QString& path);

// "No models in the Hugging Face cache, llama.cpp's cache or Ollama's store" and, for its tool
// tip, the folders looked in.
QString noLocalModelsText();
QString localModelPlacesText();

}  // namespace attnscope::app
