using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>What a user asked of one load run, in the load engine's own terms (from `perflab load`'s options).</summary>
public sealed record LoadRequest(string Url)
{
    /// <summary>
    /// A <see cref="LoadModel.Kind"/> (closed, open, burst or ramp); null: chosen from the other values (rate: open,
    /// burst size: burst, ramp values: ramp).
    /// </summary>
    public string? Kind { get; init; }
    public int Users { get; init; } = 10;
    public TimeSpan? Duration { get; init; }
    public long? Requests { get; init; }
    public double? Rate { get; init; }
    public int? BurstSize { get; init; }
    public int? Batches { get; init; }
    public int WarmupBatches { get; init; } = 1;
    public int? RampStart { get; init; }
    public int? RampStep { get; init; }
    public TimeSpan? RampEvery { get; init; }
    public int? RampMax { get; init; }
    public TimeSpan? Warmup { get; init; }
    public bool WarmupUntilSteady { get; init; }
    public TimeSpan? Timeout { get; init; }
    public bool Http2 { get; init; }
    public IReadOnlyList<string>? Values { get; init; }
    public string? ValuesFile { get; init; }
    public string? ValuesUrl { get; init; }
    public bool Random { get; init; }
    public int Seed { get; init; } = 1;
    public bool AllowRemote { get; init; }
    /// <summary>HTTP method (default GET).</summary>
    public string? Method { get; init; }
    /// <summary>Headers as curl -H writes them: "Name: value".</summary>
    public IReadOnlyList<string> Headers { get; init; } = [];
    public string? Body { get; init; }
    public string? BodyFile { get; init; }
    /// <summary>Expected statuses ("201", "200,201", "2xx"); empty: any below 400.</summary>
    public IReadOnlyList<string> ExpectStatus { get; init; } = [];
    /// <summary>Expected JSON values ("$.id=5", "items[0].id").</summary>
    public IReadOnlyList<string> ExpectJson { get; init; } = [];
}

/// <summary>
/// `perflab load`'s options made into a plan: the load model they name or imply, the feed, the request and the limits.
/// The open model's in-flight cap is chosen here for experiments too, so both build the same model from the same rate.
/// </summary>
public static class LoadPlanBuilder
{
    /// <summary>A run given only a request count (-n) stops here at the latest.</summary>
    public static readonly TimeSpan CountRunTimeCap = TimeSpan.FromMinutes(10);

    /// <summary>Open model: one connection per request per second, at least 64, unless a cap is given.</summary>
    public static OpenModel Open(double rate, int? maxInFlight = null) => new(rate, maxInFlight ?? Math.Max(64, (int)Math.Ceiling(rate)));

    /// <exception cref="PerfLabException">A combination of values that makes
    /// no run (Usage), or a target that may not receive load.</exception>
    public static LoadPlan Build(LoadRequest request)
    {
        var (model, duration) = ModelOf(request);
        var feed = new RequestFeed(request.Url)
        {
            Values = request.Values is { Count: > 0 } values ? values : null,
            ValuesFile = request.ValuesFile,
            ValuesUrl = request.ValuesUrl is { } vu && vu.StartsWith('/')
                ? new Uri(TargetGuard.ParseTarget(request.Url.Split('{')[0], "url"), vu).ToString()
                : request.ValuesUrl,
            Order = request.Random ? FeedOrder.Random : FeedOrder.Circular,
            Seed = request.Seed,
        };
        var plan = new LoadPlan(
            [new ScenarioPlan("default", model, feed) { MaxRequests = request.Requests, Request = RequestOf(request) }], duration,
            request.Warmup ?? TimeSpan.Zero, request.Timeout ?? TimeSpan.FromSeconds(5))
        {
            Http2 = request.Http2,
            AllowRemote = request.AllowRemote,
            WarmupUntilSteady = request.WarmupUntilSteady,
        };
        if (plan.WarmupUntilSteady && plan.Warmup <= TimeSpan.Zero)
        {
            throw new PerfLabException("--warmup-until-steady needs a warm-up cap: give --warmup (e.g. -w 30s).", ExitCode.Usage);
        }
        // Checked here too so that a refused or malformed target is reported before any output starts.
        var parsed = TargetGuard.ParseTarget(
            request.Url.Replace("{", "", StringComparison.Ordinal).Replace("}", "", StringComparison.Ordinal), "url");
        TargetGuard.EnsureAllowed(parsed, plan.AllowRemote);
        return plan;
    }

    /// <summary>The method, headers, body and check of `perflab load`'s options, checked before anything starts.</summary>
    public static RequestSpec RequestOf(LoadRequest r)
    {
        if (r.Body is not null && r.BodyFile is not null)
        {
            throw new PerfLabException("give the body either inline (--body) or from a file (--body-file), not both.", ExitCode.Usage);
        }
        byte[]? body = r.Body is { } text ? RequestSpec.Utf8(text) : null;
        if (r.BodyFile is { } file)
        {
            if (!File.Exists(file))
            {
                throw new PerfLabException($"body file '{file}' does not exist.", ExitCode.Usage);
            }
            body = File.ReadAllBytes(file);
        }
        var check = r.ExpectStatus.Count > 0 || r.ExpectJson.Count > 0
            ? new ResponseCheck(r.ExpectStatus.Count > 0 ? StatusSet.Parse(r.ExpectStatus) : null,
                [.. r.ExpectJson.Select(JsonExpectation.Parse)])
            : null;
        var spec = new RequestSpec
        {
            Method = (r.Method ?? (body is null ? "GET" : "POST")).ToUpperInvariant(),
            Headers = [.. r.Headers.Select(RequestSpec.ParseHeader)],
            Body = body,
            Check = check,
        };
        spec.Validate();
        return spec;
    }

    /// <summary>
    /// The models `perflab load` makes from its options, each with the options that imply it when --model is not given
    /// (the first that matches; closed otherwise) and the duration a run of it has when none is given.
    /// </summary>
    private static readonly CommandLineModel[] CommandLineModels =
    [
        new(OpenModel.Name, r => r.Rate is not null,
            r => (Open(r.Rate ?? throw new PerfLabException("--model open needs --rate.", ExitCode.Usage), r.Users), Unbounded(r))),
        new(BurstModel.Name, r => r.BurstSize is not null || r.Batches is not null,
            r => (new BurstModel(r.BurstSize ?? 200, r.Batches ?? 10, r.WarmupBatches), r.Duration ?? CountRunTimeCap)),
        new(RampModel.Name, r => r.RampStart is not null || r.RampStep is not null || r.RampMax is not null || r.RampEvery is not null,
            RampOf),
        new(ClosedModel.Name, _ => true, r => (new ClosedModel(r.Users), Unbounded(r))),
    ];

    /// <summary>The models `perflab load --model` accepts.</summary>
    public static IReadOnlyList<string> CommandLineKinds { get; } =
        [.. LoadModel.Kinds.Where(k => CommandLineModels.Any(m => m.Kind == k))];

    private sealed record CommandLineModel(string Kind, Func<LoadRequest, bool> Implied, Func<LoadRequest, (LoadModel, TimeSpan)> Make);

    private static (LoadModel Model, TimeSpan Duration) ModelOf(LoadRequest r) =>
        (r.Kind is { } kind ? CommandLineModels.Single(m => m.Kind == kind) : CommandLineModels.First(m => m.Implied(r))).Make(r);

    private static TimeSpan Unbounded(LoadRequest r) => r.Duration ?? (r.Requests is null ? TimeSpan.FromSeconds(10) : CountRunTimeCap);

    private static (LoadModel, TimeSpan) RampOf(LoadRequest r)
    {
        var every = r.RampEvery ?? TimeSpan.FromSeconds(10);
        var ramp = new RampModel(r.RampStart ?? r.Users, r.RampStep ?? 10, every, r.RampMax ?? 100);
        if (ramp.MaxUsers < ramp.StartUsers)
        {
            throw new PerfLabException("--ramp-max must be at least --ramp-start.", ExitCode.Usage);
        }
        return (ramp, r.Duration ?? every * ramp.StepCount);
    }
}
