using PerfLab.Results;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Analysis;

/// <summary>A traced stretch of one run: the variant's evidence and what the trace itself concludes (analysed into findings).</summary>
/// <param name="ThreadCpu">The CPU the kernel charged the app's threads while the trace ran, by thread name.</param>
public sealed record TracedRun(VariantEvidence Evidence, IReadOnlyList<TraceFinding> Findings, IReadOnlyList<string> Warnings,
    IReadOnlyList<ThreadGroupCpu>? ThreadCpu = null);

/// <summary>A trace that failed: the run's verdicts stand, and its note says whose trace it was and why.</summary>
public sealed record FailedTrace(string Variant, string Reason)
{
    public string Note => $"the trace of {Variant} failed, its verdicts stand without it: {Reason}";
}
