namespace PerfLab.Results;

/// <summary>
/// Checks thresholds on a run's results, after the run, as k6 does: every threshold on every variant and scenario it
/// covers, each check kept with its figure, so a failing gate says where and by how much.
/// </summary>
public static class ThresholdGate
{
    /// <summary>Every experiment's thresholds (<paramref name="thresholdsOf"/> by experiment name) checked on its results.</summary>
    public static IReadOnlyList<ThresholdCheck> Evaluate(RunResults results, Func<string, IReadOnlyList<Threshold>> thresholdsOf)
    {
        var checks = new List<ThresholdCheck>();
        foreach (var experiment in results.Experiments)
        {
            foreach (var threshold in thresholdsOf(experiment.Name))
            {
                checks.AddRange(threshold.Metric switch
                {
                    Threshold.NoWorse or Threshold.Change => Changes(threshold, experiment),
                    var metric when metric == Threshold.CpuPerRequest => PerRun(threshold, experiment, r => r.Cost?.MsPerRequest,
                        "no CPU per request measured"),
                    // The capacity's worse end, as no-worse reads its interval's: a busy run widens it and may fail the gate.
                    var metric when metric == Threshold.Capacity => PerRun(threshold, experiment, r => r.Capacity?.CapacityLowRps,
                        "no capacity found (no rate held every time it was tried, or the search did not finish)"),
                    _ => Absolute(threshold, experiment),
                });
            }
        }
        return checks;
    }

    /// <summary>A latency, RPS or error threshold on every variant and scenario of <paramref name="experiment"/>.</summary>
    public static IEnumerable<ThresholdCheck> Absolute(Threshold threshold, ExperimentResult experiment)
    {
        foreach (var variant in experiment.Variants)
        {
            foreach (var scenario in experiment.Scenarios.Where(threshold.Covers))
            {
                var scope = $"{experiment.Name} / {variant} / {scenario}";
                var runs = experiment.Runs
                    .Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
                    .Select(r => r.Scenarios.FirstOrDefault(s => s.Scenario == scenario))
                    .OfType<ScenarioStats>()
                    .ToList();
                yield return Check(threshold, scope, runs);
            }
        }
    }

    /// <summary>
    /// A figure of each run as a whole on every variant, the median over its runs: CPU per request (all scenarios
    /// together: CPU is not told apart by scenario), a capacity search's sustained RPS (its interval's lower end).
    /// </summary>
    public static IEnumerable<ThresholdCheck> PerRun(Threshold threshold, ExperimentResult experiment, Func<RunRecord, double?> figure,
        string missing)
    {
        foreach (var variant in experiment.Variants)
        {
            var values = experiment.Runs.Where(r => r.Variant == variant && r.Status == RunStatus.Ok)
                .Select(figure).OfType<double>().Where(double.IsFinite).ToList();
            yield return Check(threshold, $"{experiment.Name} / {variant}", values, missing);
        }
    }

    /// <summary>A threshold on figures already read (the median of theirs); failed, saying <paramref name="missing"/>, on none.</summary>
    public static ThresholdCheck Check(Threshold threshold, string scope, IReadOnlyList<double> values, string missing)
    {
        if (values.Count == 0)
        {
            return new ThresholdCheck(threshold.Text, scope, missing, Passed: false);
        }
        var median = Statistics.Median(values);
        return new ThresholdCheck(threshold.Text, scope, threshold.Format(median), threshold.Holds(median));
    }

    /// <summary>
    /// A latency, RPS or error threshold on one scenario's figures
    /// from one or more runs (the median of theirs; errors summed).
    /// </summary>
    public static ThresholdCheck Check(Threshold threshold, string scope, List<ScenarioStats> runs)
    {
        if (runs.Count == 0)
        {
            return new ThresholdCheck(threshold.Text, scope, "no successful run", Passed: false);
        }
        var observed = Observe(threshold, runs);
        return new ThresholdCheck(threshold.Text, scope, threshold.Format(observed), threshold.Holds(observed));
    }

    /// <summary>
    /// "change" and "no-worse": each variant's change of the experiment's deciding metric (or the one the threshold names)
    /// against the baseline, all scenarios together, better positive, read on its 95 % interval (<see cref="ChangeGate"/>).
    /// </summary>
    private static IEnumerable<ThresholdCheck> Changes(Threshold threshold, ExperimentResult experiment)
    {
        // Scoped: the scenario's own change; an experiment of one scenario compares it under "all" only.
        var oneOfSeveral = threshold.Scenario is not null && experiment.Scenarios.Count > 1;
        var scenario = oneOfSeveral ? threshold.Scenario! : Metric.AllScenarios;
        var metric = ChangeGate.MetricKey(threshold, Deciding.Key(experiment), oneOfSeveral);
        var compared = experiment.Comparisons.Where(c => c.Scenario == scenario && c.Metric == metric).ToList();
        if (compared.Count == 0)
        {
            yield return ChangeGate.Missing(threshold, experiment.Name, metric);
        }
        foreach (var c in compared)
        {
            yield return ChangeGate.Check(threshold, $"{experiment.Name} / {c.Variant} vs {experiment.Baseline} ({c.Metric})",
                GatedChange.Of(c, experiment.Name, experiment.Blocks));
        }
    }

    private static double Observe(Threshold threshold, List<ScenarioStats> runs)
    {
        if (threshold.Metric == Threshold.Errors)
        {
            var errors = runs.Sum(r => r.Errors);
            var requests = runs.Sum(r => r.Requests);
            return !threshold.Percent ? errors : requests > 0 ? 100.0 * errors / requests : double.NaN;
        }
        var pick = threshold.Measured?.OfScenario ?? throw new InvalidOperationException($"'{threshold.Metric}' reads no scenario figure");
        return Statistics.Median(runs.Select(pick).Where(double.IsFinite).ToList());
    }

    /// <summary>True when every check passed (and so when there were none).</summary>
    public static bool AllPassed(IEnumerable<ThresholdCheck> checks) => checks.All(c => c.Passed);
}
