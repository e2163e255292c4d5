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
    private readonly Dictionary<string, List<(int Block, double Seconds)>> _observed = [];
    private readonly List<double> _overheads = [];

    /// <param name="endsWithin">The budget the minimum blocks were fitted into, when they fitted (<see cref="EndsWithin"/>).</param>
    public RunPlan(IEnumerable<PlannedExperiment> experiments, TimeBudget? endsWithin = null)
    {
        _experiments = experiments.ToList();
        EndsWithin = endsWithin;
    }

    public IReadOnlyList<PlannedExperiment> Experiments => _experiments;

    /// <summary>
    /// The budget the minimum blocks were fitted into, when they fitted: the run ends within it (a block beyond the
    /// minimum is added only when it fits, <see cref="RunBudget"/>), so no ETA runs past its end. Null when the minimum
    /// was planned to overrun it. The estimate alone once read "ETA 46 min" in a 20-minute run: the first experiment's
    /// traced first run, spread as overhead over every run not yet measured.
    /// </summary>
    public TimeBudget? EndsWithin { get; }

    /// <summary>
    /// Set once every minimum block has run and the blocks left are the budget's, one at a time, to whichever experiment
    /// is still short of its target: they go on until no block fits, so the run's end is the budget's.
    /// </summary>
    public bool SpendingTheBudget { get; set; }

    public int TotalRuns => _experiments.Sum(e => e.Variants * e.Blocks);

    public int BlocksOf(string experiment) => _experiments.First(e => e.Name == experiment).Blocks;

    public void AddBlock(string experiment)
    {
        var i = _experiments.FindIndex(e => e.Name == experiment);
        _experiments[i] = _experiments[i] with { Blocks = _experiments[i].Blocks + 1 };
    }

    /// <summary>Records how long one run of <paramref name="experiment"/>'s block <paramref name="block"/> (from 1) took.</summary>
    public void Observe(string experiment, int block, double seconds)
    {
        var planned = _experiments.First(e => e.Name == experiment).PlannedRunSeconds;
        _overheads.Add(Math.Max(0, seconds - planned));
        (_observed.TryGetValue(experiment, out var list) ? list : _observed[experiment] = []).Add((block, seconds));
    }

    /// <summary>
    /// Expected seconds of one run of the experiment's next block: its own runs' time once it has some, those after its
    /// first block when there are any (block 1 also traces each variant, 5 s and its session: gc's traced block took
    /// 62 s where the others took 40), else its planned time plus the start/stop overhead seen so far.
    /// </summary>
    public double EstimateRunSeconds(string experiment) =>
        _observed.TryGetValue(experiment, out var seen) && seen.Count > 0
            ? (seen.Any(r => r.Block > 1) ? seen.Where(r => r.Block > 1) : seen).Average(r => r.Seconds)
            : _experiments.First(e => e.Name == experiment).PlannedRunSeconds
                + (_overheads.Count > 0 ? _overheads.Average() : DefaultOverheadSeconds);

    /// <summary>Expected seconds of the experiment's next block: each of its variants once, at <see cref="EstimateRunSeconds"/>.</summary>
    public double EstimateBlockSeconds(string experiment) =>
        EstimateRunSeconds(experiment) * _experiments.First(e => e.Name == experiment).Variants;

    /// <summary>
    /// Time left for the runs from the 1-based position <paramref name="index"/> to the end of the plan, that run
    /// included; never past the end of the budget the plan fits in (<see cref="EndsWithin"/>), and that end once the
    /// budget's own blocks have begun (<see cref="SpendingTheBudget"/>).
    /// </summary>
    public TimeSpan Remaining(int index)
    {
        var estimate = Estimate(index);
        return EndsWithin?.Left() is { } left && left > TimeSpan.Zero && (left < estimate || SpendingTheBudget) ? left : estimate;
    }

    private TimeSpan Estimate(int index)
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
