using PerfLab.Results;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Analysis;

/// <summary>A traced stretch of one run: the variant's evidence and what the trace itself concludes (analysed into findings).</summary>
public sealed record TracedRun(VariantEvidence Evidence, IReadOnlyList<TraceFinding> Findings, IReadOnlyList<string> Warnings);
