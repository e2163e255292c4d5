using PerfLab.Results;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Analysis;

/// <summary>A traced stretch of one run: the variant's evidence and what the trace itself concludes (analysed into findings).</summary>
/// <param name="ThreadCpu">The CPU the kernel charged the app's threads while the trace ran, by thread name.</param>
public sealed record TracedRun(VariantEvidence Evidence, IReadOnlyList<TraceFinding> Findings, IReadOnlyList<string> Warnings,
    IReadOnlyList<ThreadGroupCpu>? ThreadCpu = null);
