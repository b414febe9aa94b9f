// The language models' section of the reproduction report
// (ExperimentRegistration::report_section): what the lm summary shows, in
// sentences, its loss table and, when the run fine-tuned, the fine-tune table.
#include <fmt/format.h>

#include <filesystem>

#include "experiments/lm/lm.h"
#include "runner/report_document.h"
#include "runner/sweep.h"

namespace poslsh {

void add_lm_report_section(ReportDocument& doc, const std::string& table_csv) {
  const std::string summary_file =
      std::filesystem::path(summary_path(table_csv)).filename().string();
  const CsvTable summary = CsvTable::read(summary_path(table_csv));
  doc.heading(2, "Language models");
  doc.paragraph(fmt::format(
      "Small byte-level ALiBi transformers trained here from scratch (`poslsh lm`; the "
      "configuration is below), compared with positional-LSH attention and the baselines. What "
      "the numbers show, against exact ALiBi (intervals: 95% Student-t over the seeds; full "
      "summary: [{0}]({0})):",
      summary_file));
  doc.bullets(lm_findings(summary));
  const LmLossTable table = lm_loss_table(summary);
  doc.table(table.header, table.rows);
  doc.paragraph(
      "Equal cost: keys per query summed over hashes (lsh, measured on its own training draws), "
      "over evenly shifted fixed grids and for the causal window, matched per head to lsh at "
      "the same s (where lsh costs more than exact attention, the window is the whole context and "
      "costs less); a window as costly as s hashes has truncation error about e^(-s) while "
      "positional LSH's falls like s^(-1/2) (docs/MATH.md §8). CPU time per step: this run's, "
      "one thread per training. Each variant's attention is banded (only the keys within a "
      "band of each query computed: lsh, the fixed grids and fixed blocks to their widest "
      "block, the window to its half-width, exact ALiBi to a band certified from each layer's "
      "q and k) wherever the band computes fewer logits than the dense [heads, n, n] form, "
      "and dense otherwise (no positional bias and sinusoidal positions always), so CPU time "
      "follows each variant's band. The byte n-gram rows (interpolated Witten-Bell, orders "
      "0 to K, fitted on the training bytes) are scored on the same validation windows as "
      "the models, each byte predicted from the window's bytes before it: a model that does "
      "not beat them has not learned to use context, and the claims are then read where "
      "position barely matters.");
  const LmLossTable verdicts = lm_verdict_table(summary);
  if (!verdicts.rows.empty()) {
    doc.paragraph(
        "The paper's four claims as verdicts at the run's equivalence margin (`--margin`, bits "
        "per byte): a paired-by-seed difference is comparable only when its whole 95% interval "
        "lies within the margin, worse or better only when it lies wholly outside it, and "
        "undecided otherwise (claims: 1 trained with positional LSH, comparable to exact ALiBi; "
        "2 better than no positional bias; 3 fine-tuned with positional LSH, "
        "comparable to the exact-ALiBi control and better than fixed blocks; 4 extrapolation "
        "beyond the training context, per position bucket; baseline: the other variants, for "
        "reading the claims against):");
    doc.table(verdicts.header, verdicts.rows);
  }
  const LmLossTable finetune = lm_finetune_table(summary);
  if (!finetune.rows.empty()) {
    doc.paragraph(
        "Fine-tune: each base model (exact ALiBi, and no positional bias where the run asked "
        "for it) continued with every variant on the same batches; the control continues with "
        "exact ALiBi (what more training alone gives):");
    doc.table(finetune.header, finetune.rows);
  }
}

}  // namespace poslsh
