using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running.Capacity;

namespace PerfLab.Experiments.Running.Budget;

/// <param name="PlannedRunSeconds">Expected seconds of one run (warm-up and measured time), before any was measured.</param>
/// <param name="Blocks">Blocks planned so far: the minimum at first, one more each time the stopping rule asks for it.</param>
public sealed record PlannedExperiment(string Name, double PlannedRunSeconds, int Variants, int Blocks);

/// <summary>
/// The run order and its ETA. Each experiment runs in blocks, every variant once per block, interleaved and rotated
/// (A B C, B C A, C A B, ...) so that drift hits every variant and no variant always runs first in its block.
/// </summary>
public sealed class RunPlan
{
    /// <summary>Seconds a run costs beyond its planned time (SUT start and stop, /info) until one was measured.</summary>
    private const double DefaultOverheadSeconds = 3.0;

    private readonly List<PlannedExperiment> _experiments;
    private readonly Dictionary<string, List<double>> _observed = [];
    private readonly List<double> _overheads = [];

    public RunPlan(IEnumerable<PlannedExperiment> experiments) => _experiments = experiments.ToList();

    public IReadOnlyList<PlannedExperiment> Experiments => _experiments;

    public int TotalRuns => _experiments.Sum(e => e.Variants * e.Blocks);

    public int BlocksOf(string experiment) => _experiments.First(e => e.Name == experiment).Blocks;

    public void AddBlock(string experiment)
    {
        var i = _experiments.FindIndex(e => e.Name == experiment);
        _experiments[i] = _experiments[i] with { Blocks = _experiments[i].Blocks + 1 };
    }

    /// <summary>Records how long one run of <paramref name="experiment"/> took, for the ETA.</summary>
    public void Observe(string experiment, double seconds)
    {
        var planned = _experiments.First(e => e.Name == experiment).PlannedRunSeconds;
        _overheads.Add(Math.Max(0, seconds - planned));
        (_observed.TryGetValue(experiment, out var list) ? list : _observed[experiment] = []).Add(seconds);
    }

    /// <summary>
    /// Expected seconds of one run: the experiment's own measured run time once it has one, else its planned time
    /// plus the start/stop overhead seen so far.
    /// </summary>
    public double EstimateRunSeconds(string experiment) =>
        _observed.TryGetValue(experiment, out var seen) && seen.Count > 0
            ? seen.Average()
            : _experiments.First(e => e.Name == experiment).PlannedRunSeconds
                + (_overheads.Count > 0 ? _overheads.Average() : DefaultOverheadSeconds);

    /// <summary>Expected seconds of the experiment's next block: each of its variants once, at <see cref="EstimateRunSeconds"/>.</summary>
    public double EstimateBlockSeconds(string experiment) =>
        EstimateRunSeconds(experiment) * _experiments.First(e => e.Name == experiment).Variants;

    /// <summary>
    /// Time left for the runs from the 1-based position
    /// <paramref name="index"/> to the end of the plan, that run included.
    /// </summary>
    public TimeSpan Remaining(int index)
    {
        double seconds = 0;
        var first = 1;
        foreach (var e in _experiments)
        {
            var runs = e.Variants * e.Blocks;
            var ahead = Math.Clamp(first + runs - index, 0, runs);
            seconds += ahead * EstimateRunSeconds(e.Name);
            first += runs;
        }
        return TimeSpan.FromSeconds(seconds);
    }

    /// <summary>Block <paramref name="block"/> (from 1): every variant once, rotated by one place per block.</summary>
    public static IReadOnlyList<T> Block<T>(IReadOnlyList<T> variants, int block) =>
        Enumerable.Range(0, variants.Count).Select(i => variants[(i + block - 1) % variants.Count]).ToList();

    /// <summary>The first <paramref name="repeat"/> blocks one after another, each run with its block number.</summary>
    public static IEnumerable<(T Variant, int Rep)> Interleave<T>(IReadOnlyList<T> variants, int repeat) =>
        Enumerable.Range(1, repeat).SelectMany(rep => Block(variants, rep).Select(v => (v, rep)));

    /// <summary>
    /// Expected seconds of one run; burst and upload durations are caps, so they count batches instead; a capacity
    /// search runs a typical number of steps, each a warm-up and a window, the first warming up longer.
    /// </summary>
    public static double PlannedRunSeconds(ExperimentDefinition experiment, ProfileDefinition profile) =>
        experiment.Capacity is { } capacity
            ? capacity.ExpectedSteps * (profile.Warmup + profile.Duration).TotalSeconds + CapacityStepSettings.FirstWarmup.TotalSeconds
            : experiment.Scenarios.Any(s => s.Model.CountsBatches)
            ? profile.Warmup.TotalSeconds + (profile.Batches + 1) * 1.5
            : profile.Warmup.TotalSeconds + profile.Duration.TotalSeconds;
}
