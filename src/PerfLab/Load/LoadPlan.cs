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

    /// <summary>Read at the measured window's start and end (the app's CPU, for its cost per request); null: nothing.</summary>
    [JsonIgnore]
    public IWindowProbe? Probe { get; init; }
}

/// <param name="Name">Shown in the display and the results ("orders", "products").</param>
/// <param name="Model">Closed, open, burst or ramp.</param>
/// <param name="Feed">The URLs this scenario requests.</param>
public sealed record ScenarioPlan(string Name, LoadModel Model, RequestFeed Feed)
{
    /// <summary>Stop after this many measured requests (closed, open and ramp); the duration still bounds the run.</summary>
    public long? MaxRequests { get; init; }

    /// <summary>Method, headers, body and response check of every request; a plain GET by default.</summary>
    public RequestSpec Request { get; init; } = RequestSpec.Get;
}

[JsonPolymorphic(TypeDiscriminatorPropertyName = "kind")]
[JsonDerivedType(typeof(ClosedModel), "closed")]
[JsonDerivedType(typeof(OpenModel), "open")]
[JsonDerivedType(typeof(BurstModel), "burst")]
[JsonDerivedType(typeof(RampModel), "ramp")]
public abstract record LoadModel
{
    [JsonIgnore]
    public abstract string Kind { get; }

    /// <summary>The most requests this model has in flight at once; also the connection limit of its scenario.</summary>
    [JsonIgnore]
    public abstract int Concurrency { get; }
}

/// <summary>N virtual users, each sending its next request as soon as the last one answered (wrk -c, NBomber KeepConstant).</summary>
public sealed record ClosedModel(int Users) : LoadModel
{
    public override string Kind => "closed";
    public override int Concurrency => Users;
}

/// <summary>
/// A constant arrival rate, as wrk2: request i of connection k is due at start + (k + i·MaxInFlight) / Rate, and its
/// latency is measured from that intended time, so a stalled server shows in the percentiles (coordinated omission
/// corrected); the latency from the actual send is reported beside it. At most <paramref name="MaxInFlight"/>
/// requests are in flight (one per connection); when all are busy the next sends are late, and counted.
/// </summary>
public sealed record OpenModel(double Rate, int MaxInFlight) : LoadModel
{
    public override string Kind => "open";
    public override int Concurrency => MaxInFlight;
}

/// <summary>
/// <paramref name="BatchSize"/> requests sent at once and awaited together, <paramref name="Batches"/> times
/// (after <paramref name="WarmupBatches"/> unmeasured ones); each batch's wall time is reported as BenchmarkDotNet would.
/// </summary>
public sealed record BurstModel(int BatchSize, int Batches, int WarmupBatches = 1) : LoadModel
{
    public override string Kind => "burst";
    public override int Concurrency => BatchSize;
}

/// <summary>Closed-model users stepping up: <paramref name="StartUsers"/>, then +<paramref name="Step"/> every <paramref name="StepEvery"/> up to <paramref name="MaxUsers"/>.</summary>
public sealed record RampModel(int StartUsers, int Step, TimeSpan StepEvery, int MaxUsers) : LoadModel
{
    public override string Kind => "ramp";
    public override int Concurrency => MaxUsers;

    /// <summary>Steps until <see cref="MaxUsers"/> is reached, counting the first.</summary>
    public int StepCount => Step <= 0 || StartUsers >= MaxUsers ? 1 : 1 + (int)Math.Ceiling((MaxUsers - StartUsers) / (double)Step);

    public int UsersAtStep(int step) => Math.Min(MaxUsers, StartUsers + (step * Step));
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
