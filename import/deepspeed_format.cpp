// DeepSpeed logs behind the log-format interface; see deepspeed_format.h.
#include "import/deepspeed_format.h"

#include <map>
#include <utility>

#include "costmodel/statistics.h"
#include "import/deepspeed_import.h"
#include "import/deepspeed_log.h"

namespace vitsim::import {
namespace {

class DeepSpeedFormat : public LogFormat {
 public:
  std::string name() const override { return "deepspeed"; }
  std::string extension() const override { return ".log"; }

  std::vector<ImportedLog> import_logs(const std::vector<LogToImport>& logs,
                                       const costmodel::DeviceCatalog& catalog,
                                       const LogImportOptions& options) const override {
    ImportOptions base;
    base.model = options.model;
    base.train_images = options.train_images;
    base.precision_names = options.precision_names;
    struct Parsed {
      DeepSpeedLog log;
      ImportOptions options;
      std::string device;
    };
    std::vector<Parsed> parsed;
    // DeepSpeed's local gradient work per (device, precision), from the 1-rank logs.
    std::map<std::pair<std::string, costmodel::Regime>, std::vector<double>> local;
    for (const LogToImport& l : logs) {
      ImportOptions opt = base;
      opt.gpu = l.device;
      opt.link_class = l.link_class;
      parsed.push_back({parse_deepspeed_log(l.path), opt, l.device});
      if (const auto w = local_gradient_work_s(parsed.back().log, opt))
        local[{l.device, regime_of_log(parsed.back().log, opt)}].push_back(*w);
    }
    std::vector<ImportedLog> out;
    for (Parsed& p : parsed) {
      const auto it = local.find({p.device, regime_of_log(p.log, p.options)});
      if (it != local.end()) p.options.local_gradient_work_s = costmodel::mean(it->second);
      ImportResult r = import_deepspeed({p.log}, catalog, p.options);
      const LogSummary& s = r.logs.front();
      ImportedLog i;
      i.file = s.file;
      i.world_size = s.world_size;
      i.micro_batch = s.micro_batch;
      i.data_fraction = s.data_fraction;
      i.step_s = s.step_interval_mean_s;
      i.compute_s = s.forward_s + s.backward_inner_s;
      i.summary = to_json(s);
      i.profile = std::move(r.profile);
      out.push_back(std::move(i));
    }
    return out;
  }
};

}  // namespace

const LogFormat& deepspeed_log_format() {
  static const DeepSpeedFormat format;
  return format;
}

}  // namespace vitsim::import
