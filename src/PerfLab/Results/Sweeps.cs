using System.Text.Json.Serialization;

namespace PerfLab.Results;

// The conditions an experiment ran under and the sweeps that varied one of them. Part of results.json.

/// <summary>
/// The conditions around the SUT that an experiment (or one of its variants, or a sweep point) sets: the round-trip
/// time of a latency proxy between the SUT and PostgreSQL, the users of every closed scenario, the thread pool's
/// minimum worker threads, and the cores the SUT may use. Null: not set, the SUT runs as it otherwise would.
/// </summary>
public sealed record Conditions
{
    public static readonly Conditions None = new();

    /// <summary>Round-trip time in ms added between the SUT and PostgreSQL by the latency proxy (0: the proxy, no delay).</summary>
    public double? DatabaseRttMs { get; init; }
    /// <summary>Users of every closed scenario, overriding the scenarios'.</summary>
    public int? Users { get; init; }
    /// <summary>The SUT setting ThreadPool:MinWorkerThreads.</summary>
    public int? MinThreads { get; init; }
    /// <summary>CPUs the SUT process may run on (taskset), the first ones of its CPU set.</summary>
    public int? Cores { get; init; }

    [JsonIgnore]
    public bool IsEmpty => this == None;

    /// <summary>These conditions with every one that <paramref name="inner"/> sets taken from it (the inner one wins).</summary>
    public Conditions Under(Conditions? inner) => inner is null ? this : new Conditions
    {
        DatabaseRttMs = inner.DatabaseRttMs ?? DatabaseRttMs,
        Users = inner.Users ?? Users,
        MinThreads = inner.MinThreads ?? MinThreads,
        Cores = inner.Cores ?? Cores,
    };

    /// <summary>Whether <paramref name="kind"/> is set here.</summary>
    public bool Sets(ConditionKind kind) => Get(kind) is not null;

    public double? Get(ConditionKind kind) => kind switch
    {
        ConditionKind.DatabaseRtt => DatabaseRttMs,
        ConditionKind.Users => Users,
        ConditionKind.MinThreads => MinThreads,
        _ => Cores,
    };

    /// <summary>These conditions with <paramref name="kind"/> set to <paramref name="value"/>.</summary>
    public Conditions With(ConditionKind kind, double value) => kind switch
    {
        ConditionKind.DatabaseRtt => this with { DatabaseRttMs = value },
        ConditionKind.Users => this with { Users = (int)value },
        ConditionKind.MinThreads => this with { MinThreads = (int)value },
        _ => this with { Cores = (int)value },
    };

    /// <summary>"database RTT 1 ms, SUT on 1 core"; empty when nothing is set.</summary>
    public string Describe() => string.Join(", ", Enum.GetValues<ConditionKind>()
        .Where(Sets).Select(k => ConditionNames.Describe(k, Get(k)!.Value)));
}

[JsonConverter(typeof(JsonStringEnumConverter<ConditionKind>))]
public enum ConditionKind { DatabaseRtt, Users, MinThreads, Cores }

/// <summary>How conditions are written in experiment files and reports.</summary>
public static class ConditionNames
{
    /// <summary>The names a sweep's condition is given by in an experiment file.</summary>
    public static readonly IReadOnlyDictionary<string, ConditionKind> ByName = new Dictionary<string, ConditionKind>
    {
        ["database-rtt"] = ConditionKind.DatabaseRtt,
        ["users"] = ConditionKind.Users,
        ["min-threads"] = ConditionKind.MinThreads,
        ["cores"] = ConditionKind.Cores,
    };

    public static string Name(ConditionKind kind) => ByName.First(p => p.Value == kind).Key;

    /// <summary>The axis label of a sweep chart.</summary>
    public static string Axis(ConditionKind kind) => kind switch
    {
        ConditionKind.DatabaseRtt => "database round-trip time (ms)",
        ConditionKind.Users => "users per closed scenario",
        ConditionKind.MinThreads => "ThreadPool:MinWorkerThreads",
        _ => "cores given to the SUT",
    };

    /// <summary>"0.5 ms", "50 users", "min threads 70", "1 core".</summary>
    public static string Value(ConditionKind kind, double value)
    {
        var number = value.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture);
        return kind switch
        {
            ConditionKind.DatabaseRtt => $"{number} ms",
            ConditionKind.Users => $"{number} users",
            ConditionKind.MinThreads => $"min threads {number}",
            _ => value == 1 ? "1 core" : $"{number} cores",
        };
    }

    public static string Describe(ConditionKind kind, double value) => kind switch
    {
        ConditionKind.DatabaseRtt => "database RTT " + Value(kind, value),
        ConditionKind.Cores => "SUT on " + Value(kind, value),
        ConditionKind.MinThreads => "thread-pool " + Value(kind, value),
        _ => Value(kind, value) + " per closed scenario",
    };
}

/// <summary>
/// An experiment run once per value of one condition (each a "point", an experiment of its own in
/// <see cref="RunResults.Experiments"/>), and each variant's change against the baseline gathered along the values.
/// </summary>
public sealed record SweepResult
{
    public required string Experiment { get; init; }
    public required string Title { get; init; }
    public required string Baseline { get; init; }
    public required ConditionKind Condition { get; init; }
    /// <summary>The condition's values in the order measured (ascending).</summary>
    public required IReadOnlyList<double> Values { get; init; }
    /// <summary>The metric the changes are of: all-scenario RPS, or the batch mean time of burst and upload experiments.</summary>
    public required Metric Metric { get; init; }
    /// <summary>Per value, the name of the point's experiment result (null when it did not run).</summary>
    public required IReadOnlyList<string?> Points { get; init; }
    public required IReadOnlyList<SweepSeries> Variants { get; init; }
    /// <summary>A sweep of users (closed model, RPS): each variant's Universal Scalability Law fit; null for other sweeps.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<ScalabilityFit>? Scalability { get; init; }
    /// <summary>A sweep of users: each variant's σ, κ and N* against the baseline's, paired by block; null for other sweeps.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<ScalabilityComparison>? ScalabilityComparisons { get; init; }
}

/// <summary>One variant along a sweep: its change at each value, and the first value where it is decided better.</summary>
public sealed record SweepSeries
{
    public required string Variant { get; init; }
    public required IReadOnlyList<SweepPointChange> Points { get; init; }
    /// <summary>
    /// The first value (ascending) where the change is decided better
    /// (the verdict rule of the reports); null: none within the values.
    /// </summary>
    public double? Crossover { get; init; }
}

/// <summary>A variant's change against the baseline at one value; null figures where the point has no comparison.</summary>
public sealed record SweepPointChange(double Value, double? ChangePercent, double? LowPercent, double? HighPercent, Verdict Verdict);

/// <summary>
/// The database path of one run: the round-trip time configured on the latency proxy between the SUT and PostgreSQL,
/// and trivial-query round trips (SELECT 1, one connection, median) through the proxy and directly, just before the run.
/// </summary>
public sealed record DatabasePathStats(double ConfiguredRttMs, double MeasuredRttMs, double DirectRttMs, int Queries)
{
    /// <summary>What the proxy added, as measured: through it minus directly.</summary>
    [JsonIgnore]
    public double AddedRttMs => MeasuredRttMs - DirectRttMs;
}
