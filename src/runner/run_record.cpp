#include "runner/run_record.h"

#include <fmt/format.h>
#include <poslsh/input_error.h>

#include "internal/printable.h"
#include "runner/atomic_file.h"
#include "runner/version.h"

namespace poslsh {

namespace {

using Json = nlohmann::ordered_json;

// One value as the sidecar layout writes it (see run_record.h): floats with
// three decimals, arrays on one line, everything else as the library dumps it.
std::string value_text(const Json& value) {
  if (value.is_number_float()) return fmt::format("{:.3f}", value.get<double>());
  if (value.is_array()) {
    std::string out;
    for (const auto& element : value) out += (out.empty() ? "" : ", ") + value_text(element);
    return "[" + out + "]";
  }
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

RunRecord RunRecord::of_this_build() {
  RunRecord record;
  record.set("tool", "poslsh").set("version", kVersion).set("git_commit", git_commit());
  return record;
}

RunRecord RunRecord::parse(const std::string& text, const std::string& path,
                           const std::string& component) {
  RunRecord record;
  record.path_ = path;
  record.component_ = component;
  try {
    record.fields_ = Json::parse(text);
  } catch (const Json::exception& e) {  // a syntax error, or a number out of range
    record.fail(fmt::format("is not a JSON sidecar ({})", detail::printable(e.what(), 200)));
  }
  if (!record.fields_.is_object()) record.fail("is not a JSON object");
  return record;
}

RunRecord RunRecord::read(const std::string& path, const std::string& component) {
  return parse(read_file(component, path), path, component);
}

std::string RunRecord::to_text() const {
  std::string out = "{\n";
  std::size_t left = fields_.size();
  for (const auto& [key, value] : fields_.items())
    out += fmt::format("  {}: {}{}\n", value_text(Json(key)), value_text(value),
                       --left > 0 ? "," : "");
  return out + "}\n";
}

RunRecord& RunRecord::set(const std::string& key, const std::string& value) {
  fields_[key] = value;
  return *this;
}

RunRecord& RunRecord::set(const std::string& key, std::uint64_t value) {
  fields_[key] = value;
  return *this;
}

RunRecord& RunRecord::set(const std::string& key, bool value) {
  fields_[key] = value;
  return *this;
}

RunRecord& RunRecord::set(const std::string& key, double value) {
  fields_[key] = value;
  return *this;
}

RunRecord& RunRecord::set(const std::string& key, const std::vector<std::string>& values) {
  fields_[key] = values;
  return *this;
}

RunRecord& RunRecord::copy(const std::string& key, const RunRecord& from) {
  fields_[key] = from.field(key);
  return *this;
}

void RunRecord::fail(const std::string& what) const {
  throw InputError(fmt::format("{}: '{}' {}", component_, path_, what));
}

const nlohmann::ordered_json& RunRecord::field(const std::string& key) const {
  const auto it = fields_.find(key);
  if (it == fields_.end()) fail(fmt::format("has no \"{}\" field", key));
  return *it;
}

std::string RunRecord::text(const std::string& key) const {
  const auto& value = field(key);
  if (!value.is_string()) fail(fmt::format("has a \"{}\" field that is not a string", key));
  return value.get<std::string>();
}

std::uint64_t RunRecord::number(const std::string& key) const {
  const auto& value = field(key);
  if (!value.is_number_unsigned())
    fail(fmt::format("has a \"{}\" field that is not an integer >= 0", key));
  return value.get<std::uint64_t>();
}

bool RunRecord::boolean(const std::string& key) const {
  const auto& value = field(key);
  if (!value.is_boolean()) fail(fmt::format("has a \"{}\" field that is not true or false", key));
  return value.get<bool>();
}

RunRecord sweep_record(const SweepRecordFields& f) {
  RunRecord record = RunRecord::of_this_build();
  record.set("experiment", f.experiment)
      .set("seed", f.seed)
      .set("shard", f.shard)
      .set("cells_total", f.cells_total)
      .set("cells_in_shard", f.cells_in_shard)
      .set("threads", f.threads)
      .set("timing", f.timing)
      .set("config_fingerprint", hex64(f.config_fingerprint))
      .set("finished_utc", f.finished_utc)
      .set("duration_seconds_this_run", f.duration_seconds)
      .set("machine", f.machine)
      .set("columns", f.columns)
      .set("rows", f.rows)
      .set("csv_fnv1a64", hex64(f.csv_fnv1a64))
      .set("config", f.config);
  return record;
}

std::string hex64(std::uint64_t value) { return fmt::format("{:016x}", value); }

}  // namespace poslsh
