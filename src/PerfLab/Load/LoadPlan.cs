using System.Text.Json.Serialization;

namespace PerfLab.Load;

/// <summary>What to run: one or more scenarios side by side, with the limits every scenario shares.</summary>
/// <param name="Scenarios">Run concurrently, each with its own model, size, connections and statistics.</param>
/// <param name="Duration">Measured time after the warm-up (closed, open, ramp); the time cap for burst runs.</param>
/// <param name="Warmup">Load applied before measuring; excluded from every statistic (kept in the timeline, flagged).</param>
/// <param name="Timeout">Per-request timeout; a request that takes longer counts as a "timeout" error.</param>
public sealed record LoadPlan(IReadOnlyList<ScenarioPlan> Scenarios, TimeSpan Duration, TimeSpan Warmup, TimeSpan Timeout)
{
    /// <summary>Speak HTTP/2 with prior knowledge (h2c on http://) instead of HTTP/1.1 keep-alive.</summary>
    public bool Http2 { get; init; }

    /// <summary>Allow targets other than loopback (127.0.0.0/8, ::1, localhost).</summary>
    public bool AllowRemote { get; init; }

    /// <summary>How long to wait for the TCP connect of the preflight check before calling a target unreachable.</summary>
    public TimeSpan ConnectTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// End the warm-up as soon as the per-second throughput has settled (steady state), with <see cref="Warmup"/> as
    /// the cap; false: a fixed warm-up of <see cref="Warmup"/>.
    /// </summary>
    public bool WarmupUntilSteady { get; init; }

    /// <summary>
    /// With <see cref="WarmupUntilSteady"/>: a further condition the target must meet before the warm-up ends, checked
    /// once a second, such as "the SUT's JIT has gone quiet" (read from its counters by the caller). Null: none.
    /// </summary>
    [JsonIgnore]
    public Func<bool>? TargetSettled { get; init; }

    /// <summary>
    /// With <see cref="WarmupUntilSteady"/> and <see cref="TargetSettled"/>: whether the warm-up also waits for a steady
    /// throughput (<see cref="SteadyState"/>). False when targets warm up together on shared cores: each one's throughput
    /// then moves with the others' (three SUTs of a block on 2 cores: 6 of 12 warm-ups ran to their 15 s cap waiting for
    /// it, none without it), and the target's own condition alone says when it is warm.
    /// </summary>
    public bool WarmupWaitsForSteadyThroughput { get; init; } = true;

    /// <summary>
    /// A closed scenario's measured window lasts at least one cycle: past <see cref="Duration"/> until it has completed
    /// as many requests as it has users, at most <see cref="Timeout"/> more (<see cref="WindowCycle"/>). False: the
    /// duration exactly, as wrk.
    /// </summary>
    public bool WindowHoldsACycle { get; init; }

    /// <summary>Read at the measured window's start and end (the app's CPU, for its cost per request); null: nothing.</summary>
    [JsonIgnore]
    public IWindowProbe? Probe { get; init; }
}

/// <param name="Name">Shown in the display and the results ("orders", "products").</param>
/// <param name="Model">How the requests are sent: one case of <see cref="LoadModel"/>.</param>
/// <param name="Feed">The URLs this scenario requests.</param>
public sealed record ScenarioPlan(string Name, LoadModel Model, RequestFeed Feed)
{
    /// <summary>Stop after this many measured requests (closed, open and ramp); the duration still bounds the run.</summary>
    public long? MaxRequests { get; init; }

    /// <summary>Method, headers, body and response check of every request; a plain GET by default.</summary>
    public RequestSpec Request { get; init; } = RequestSpec.Get;
}

public enum FeedOrder
{
    /// <summary>Values in list order, wrapping around, shared by all users.</summary>
    Circular,
    /// <summary>Values drawn at random, reproducibly from the seed.</summary>
    Random,
}

/// <summary>
/// The URLs of a scenario: <paramref name="UrlTemplate"/> is an absolute URL, optionally with one placeholder in braces
/// (<c>http://127.0.0.1:5000/customer/orders/{id}</c>) filled from the values of the feed.
/// </summary>
public sealed record RequestFeed(string UrlTemplate)
{
    /// <summary>Values given inline.</summary>
    public IReadOnlyList<string>? Values { get; init; }

    /// <summary>A file of values: a JSON array, or one value per line.</summary>
    public string? ValuesFile { get; init; }

    /// <summary>A URL fetched once before the run, answering a JSON array (e.g. /customer/orders/ids).</summary>
    public string? ValuesUrl { get; init; }

    public FeedOrder Order { get; init; } = FeedOrder.Circular;

    /// <summary>The placeholder's name when only the request body has one (the URL's own names it otherwise).</summary>
    public string? Placeholder { get; init; }

    public int Seed { get; init; } = 1;

    public static RequestFeed Single(string url) => new(url);
}
