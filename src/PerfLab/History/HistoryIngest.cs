using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using PerfLab.Results;

namespace PerfLab.History;

/// <summary>
/// A run's results turned into history points: per experiment, variant and comparable metric (throughput, latency,
/// batch time, capacity, CPU per request) the median and 95 % interval over the variant's successful runs, per scenario
/// and for all scenarios together, each with the noise floor the run stated for that figure.
/// </summary>
public static class HistoryIngest
{
    /// <param name="commit">The commit of what was measured when the user stated it (`--commit`); else the one results.json
    /// names. The run's key stays the run's own, so the same run stated twice is still one run.</param>
    public static (HistoryRun Run, IReadOnlyList<HistoryPoint> Points) From(RunResults results, string source, string? commit = null)
    {
        var provenance = results.Provenance;
        var machine = MachineOf(provenance);
        var key = Hash(string.Join('|', results.StartedAt.UtcDateTime.ToString("O", CultureInfo.InvariantCulture),
            results.FinishedAt.UtcDateTime.ToString("O", CultureInfo.InvariantCulture), provenance.Commit, machine,
            string.Join(',', results.Experiments.Select(e => e.Name))));
        var run = new HistoryRun(key, results.StartedAt, commit ?? provenance.Commit, machine, provenance.RuntimeVersion, results.Profile,
            results.MachineNoise?.Describe(), source);
        var points = results.Experiments.SelectMany(e => PointsOf(e, results.MachineNoise)).ToList();
        return (run, points);
    }

    /// <summary>
    /// The machine a run was measured on, from what results.json records of it: two runs on machines that differ in
    /// CPU, cores or system never share a series unless asked (`--machine any`).
    /// </summary>
    public static string MachineOf(Provenance provenance) =>
        $"{provenance.CpuModel.Trim()}, {provenance.LogicalCores} cores, {provenance.OperatingSystem.Trim()}";

    private static IEnumerable<HistoryPoint> PointsOf(ExperimentResult experiment, MachineNoise? runNoise)
    {
        var noise = experiment.MachineNoise ?? runNoise;
        var scenarios = experiment.Scenarios.Count > 1 ? experiment.Scenarios.Prepend(Metric.AllScenarios) : [Metric.AllScenarios];
        foreach (var variant in experiment.Variants)
        {
            var ok = experiment.Runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok).ToList();
            foreach (var metric in Metrics.Comparable)
            {
                foreach (var scenario in metric.PerScenario ? scenarios : [Metric.AllScenarios])
                {
                    var samples = ok.Select(r => metric.Read(r, scenario)).Where(v => double.IsFinite(v) && v > 0).ToList();
                    if (samples.Count == 0)
                    {
                        continue;
                    }
                    var estimate = Statistics.Estimate(samples);
                    var verdict = experiment.Comparisons
                        .FirstOrDefault(c => c.Variant == variant && c.Scenario == scenario && c.Metric == metric)?.Verdict;
                    yield return new HistoryPoint(experiment.Name, variant, scenario, metric.Key, estimate.Median,
                        Finite(estimate.Low), Finite(estimate.High), estimate.Samples, FloorOf(metric, noise),
                        verdict?.ToString().ToLowerInvariant());
                }
            }
        }
    }

    /// <summary>
    /// The run's noise line states what it can tell apart on cost (the CPU the kernel charged per request) and on
    /// throughput; other figures carry no stated floor.
    /// </summary>
    private static double? FloorOf(Metric metric, MachineNoise? noise) =>
        noise is null ? null
        : metric.Role == MetricRole.RunCompared ? Finite(noise.CostDecidablePercent)
        : metric == Metrics.Rps ? Finite(noise.RpsDecidablePercent)
        : null;

    private static double? Finite(double? value) => value is { } v && double.IsFinite(v) ? v : null;

    private static string Hash(string text) => Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(text)))[..32];
}
