using System.Globalization;
using PerfLab.Common;
using PerfLab.Load.Models;

namespace PerfLab.Load;

/// <summary>
/// How one scenario sends its requests: the one type a load model has from the experiment file to results.json.
/// A new model is a new case (a record deriving from this, listed in <see cref="Cases"/>) plus its runner; what the
/// rest of perflab asks of a model is asked through these members, never by its kind.
/// </summary>
public abstract record LoadModel
{
    /// <summary>The model's name in experiment files, on the command line and in results.json ("closed").</summary>
    public abstract string Kind { get; }

    /// <summary>The most requests this model has in flight at once; also the connection limit of its scenario.</summary>
    public abstract int Concurrency { get; }

    /// <summary>Measured in batches (a count per profile) rather than over a time window: its figure is the batch's mean time.</summary>
    public virtual bool CountsBatches => false;

    /// <summary>Its measured window may be served in alternating slots that are merged afterwards (a steady rate or user count).</summary>
    public virtual bool AlternatesInSlots => false;

    /// <summary>
    /// The round trip the network path to the app adds to this model's requests: the experiment runner sends them
    /// through a latency proxy in front of the app, a real delay on the wire (uploads); null: straight to the app.
    /// </summary>
    public virtual TimeSpan? PathRtt => null;

    /// <summary>Its runner makes its own request (an upload's body): a scenario's method, body and checks do not apply.</summary>
    public virtual bool MakesItsRequest => false;

    /// <summary>The model as one profile runs it: the profile's batch count, step length or size filled in.</summary>
    public virtual LoadModel ForProfile(LoadShape shape) => this;

    /// <summary>One line for reports: "closed model, 8 users".</summary>
    public abstract string Describe();

    /// <summary>How large the load was, from what a result of this model recorded: "10 users", "200 req/s, at most 64 in flight".</summary>
    public virtual string SizeOf(ScenarioResult result) => Text($"{result.Concurrency} users");

    /// <summary>What makes this model unable to run, one message per problem; empty when it can run.</summary>
    public abstract IEnumerable<string> Problems();

    /// <summary>The engine's runner for this model.</summary>
    internal abstract ILoadModelRunner CreateRunner();

    /// <summary>
    /// Generator <paramref name="index"/> of <paramref name="count"/>'s part of this load, such that the generators
    /// together send exactly this model's load; a model that cannot be divided says so (a usage error).
    /// </summary>
    public virtual LoadModel ShareOf(int index, int count) =>
        throw new PerfLabException(Text($"the {Kind} model cannot be shared between generators."), ExitCode.Usage);

    /// <summary>How long after the common start generator <paramref name="index"/> of <paramref name="count"/> begins its part.</summary>
    public virtual TimeSpan ShareDelay(int index, int count) => TimeSpan.Zero;

    /// <summary>
    /// Generator <paramref name="index"/>'s part of <paramref name="total"/> whole things (the first ones take the
    /// remainder); each needs one.
    /// </summary>
    protected static int Part(int total, int index, int count, string what) =>
        total >= count
            ? (total / count) + (index < total % count ? 1 : 0)
            : throw new PerfLabException(Text($"{what} {total} cannot be divided between {count} generators: give at least {count}."),
                ExitCode.Usage);

    /// <summary>
    /// Every model: its kind, its type, the keys it reads from a scenario of an experiment file, and the reading.
    /// The one list of the models.
    /// </summary>
    public static IReadOnlyList<ModelCase> Cases { get; } =
    [
        new(ClosedModel.Name, typeof(ClosedModel), ["users"], s => new ClosedModel(s.Count("users", 10_000))),
        new(OpenModel.Name, typeof(OpenModel), ["rate"], s => LoadPlanBuilder.Open(s.Count("rate", 1_000_000))),
        new(BurstModel.Name, typeof(BurstModel), ["size"], s => new BurstModel(s.Count("size", 10_000), Batches: 0)),
        new(RampModel.Name, typeof(RampModel), ["from", "step", "users"], RampModel.Read),
        new(UploadModel.Name, typeof(UploadModel), ["size", "rtt"], s => new UploadModel(s.Size("size"), s.RoundTrip("rtt"))),
    ];

    /// <summary>Every model's <see cref="Kind"/>: closed, open, burst, ramp, upload.</summary>
    public static IReadOnlyList<string> Kinds { get; } = [.. Cases.Select(r => r.Kind)];

    protected static string Text(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}

/// <summary>A model's settings as an experiment file gives them, each checked against its range as it is read.</summary>
public interface IModelSettings
{
    /// <summary>A whole number from 1 to <paramref name="max"/>.</summary>
    int Count(string key, int max);

    /// <summary>A byte size from 1KB to 1GB ("108MB").</summary>
    long Size(string key);

    /// <summary>A round-trip time from 0ms to 1s ("10ms").</summary>
    TimeSpan RoundTrip(string key);

    /// <summary>The error to throw for a value that is in range but does not fit the others, placed at <paramref name="key"/>.</summary>
    Exception Invalid(string key, string message);
}

/// <summary>One model's entry in <see cref="LoadModel.Cases"/>.</summary>
public sealed record ModelCase(string Kind, Type Type, IReadOnlyList<string> Keys, Func<IModelSettings, LoadModel> Read);

/// <summary>What a profile decides for a model: the measured time, the batch count, and a size (uploads).</summary>
public sealed record LoadShape(TimeSpan Duration, int Batches, long? Size = null);

/// <summary>N virtual users, each sending its next request as soon as the last one answered (wrk -c, NBomber KeepConstant).</summary>
public sealed record ClosedModel(int Users) : LoadModel
{
    public const string Name = "closed";
    public override string Kind => Name;
    public override int Concurrency => Users;
    public override bool AlternatesInSlots => true;
    public override string Describe() => Text($"closed model, {Users} users");
    public override LoadModel ShareOf(int index, int count) => new ClosedModel(Part(Users, index, count, "users"));

    public override IEnumerable<string> Problems()
    {
        if (Users <= 0)
        {
            yield return "users must be positive.";
        }
    }

    internal override ILoadModelRunner CreateRunner() => new ClosedRunner(this);
}

/// <summary>
/// A constant arrival rate, as wrk2: request i of connection k is due at start + (k + i·MaxInFlight) / Rate, and its
/// latency is measured from that intended time, so a stalled server shows in the percentiles (coordinated omission
/// corrected); the latency from the actual send is reported beside it. At most <paramref name="MaxInFlight"/>
/// requests are in flight (one per connection); when all are busy the next sends are late, and counted.
/// </summary>
public sealed record OpenModel(double Rate, int MaxInFlight) : LoadModel
{
    public const string Name = "open";
    public override string Kind => Name;
    public override int Concurrency => MaxInFlight;
    public override bool AlternatesInSlots => true;
    public override string Describe() => Text($"open model, {Rate} req/s (latency from the intended send time)");
    public override string SizeOf(ScenarioResult result) => Text($"{result.Open?.Rate:0.##} req/s, at most {result.Concurrency} in flight");

    /// <summary>
    /// R/N each, generator i starting i/R late (<see cref="ShareDelay"/>): its k-th request leaves at t0 + (kN + i)/R, so
    /// the union is the schedule at R.
    /// </summary>
    public override LoadModel ShareOf(int index, int count) =>
        new OpenModel(Rate / count, Math.Max(1, (int)Math.Ceiling(MaxInFlight / (double)count)));

    public override TimeSpan ShareDelay(int index, int count) => TimeSpan.FromSeconds(index / Rate);

    public override IEnumerable<string> Problems()
    {
        if (!(Rate > 0 && double.IsFinite(Rate)))
        {
            yield return "rate must be positive.";
        }
        if (MaxInFlight <= 0)
        {
            yield return "the in-flight cap (connections) must be positive.";
        }
    }

    internal override ILoadModelRunner CreateRunner() => new OpenRunner(this);
}

/// <summary>
/// <paramref name="BatchSize"/> requests sent at once and awaited together, <paramref name="Batches"/> times
/// (after <paramref name="WarmupBatches"/> unmeasured ones); each batch's wall time is reported as BenchmarkDotNet would.
/// In an experiment file the profile gives the batch count.
/// </summary>
public sealed record BurstModel(int BatchSize, int Batches, int WarmupBatches = 1) : LoadModel
{
    public const string Name = "burst";
    public override string Kind => Name;
    public override int Concurrency => BatchSize;
    public override bool CountsBatches => true;
    public override LoadModel ForProfile(LoadShape shape) => this with { Batches = shape.Batches };
    public override string Describe() => Text($"burst of {BatchSize} concurrent requests, {Batches} batches");
    public override string SizeOf(ScenarioResult result) => Text($"{result.Concurrency} at once");
    public override LoadModel ShareOf(int index, int count) => this with { BatchSize = Part(BatchSize, index, count, "burst size") };

    public override IEnumerable<string> Problems()
    {
        if (BatchSize <= 0)
        {
            yield return "burst size must be positive.";
        }
        if (Batches <= 0)
        {
            yield return "batches must be positive.";
        }
        if (WarmupBatches < 0)
        {
            yield return "warm-up batches must not be negative.";
        }
    }

    internal override ILoadModelRunner CreateRunner() => new BurstRunner(this);
}

/// <summary>
/// Closed-model users stepping up: <paramref name="StartUsers"/>, then +<paramref name="Step"/> every
/// <paramref name="StepEvery"/> up to <paramref name="MaxUsers"/>. In an experiment file the steps share the profile's
/// duration (<see cref="StepEvery"/> is zero until <see cref="ForProfile"/>).
/// </summary>
public sealed record RampModel(int StartUsers, int Step, TimeSpan StepEvery, int MaxUsers) : LoadModel
{
    public const string Name = "ramp";
    public override string Kind => Name;
    public override int Concurrency => MaxUsers;

    /// <summary>Steps until <see cref="MaxUsers"/> is reached, counting the first.</summary>
    public int StepCount => Step <= 0 || StartUsers >= MaxUsers ? 1 : 1 + (int)Math.Ceiling((MaxUsers - StartUsers) / (double)Step);

    public int UsersAtStep(int step) => Math.Min(MaxUsers, StartUsers + (step * Step));

    public override LoadModel ForProfile(LoadShape shape) => this with { StepEvery = shape.Duration / StepCount };

    internal static RampModel Read(IModelSettings s)
    {
        var ramp = new RampModel(s.Count("from", 10_000), s.Count("step", 10_000), TimeSpan.Zero, s.Count("users", 10_000));
        return ramp.StartUsers <= ramp.MaxUsers ? ramp
            : throw s.Invalid("from",
                Text($"a ramp starts at {ramp.StartUsers} users but ends at {ramp.MaxUsers}; expected from <= users."));
    }
    public override string Describe() => Text($"ramp from {StartUsers} to {MaxUsers} users, +{Step} per step");
    public override string SizeOf(ScenarioResult result) => Text($"up to {result.Concurrency} users");

    /// <summary>
    /// Every step divided as the closed model's users are: at each step the generators together run the whole ramp's
    /// users.
    /// </summary>
    public override LoadModel ShareOf(int index, int count) => this with
    {
        StartUsers = Part(StartUsers, index, count, "ramp start"),
        Step = Part(Step, index, count, "ramp step"),
        MaxUsers = Part(MaxUsers, index, count, "ramp max"),
    };

    public override IEnumerable<string> Problems()
    {
        if (StartUsers <= 0)
        {
            yield return "ramp start users must be positive.";
        }
        if (Step <= 0)
        {
            yield return "ramp step must be positive.";
        }
        if (StepEvery <= TimeSpan.Zero)
        {
            yield return "ramp step interval must be positive.";
        }
        if (MaxUsers < StartUsers)
        {
            yield return "ramp max users must be at least the start users.";
        }
    }

    internal override ILoadModelRunner CreateRunner() => new RampRunner(this);
}

/// <summary>
/// <paramref name="Uploads"/> posts of <paramref name="Bytes"/> each to the built-in SUT's /upload over HTTP/2 (h2c),
/// one at a time, through a latency proxy adding <paramref name="Rtt"/> (<see cref="PathRtt"/>); each upload's time is
/// one batch, after one unmeasured upload. In an experiment file the profile gives the count, and may give its own size.
/// </summary>
public sealed record UploadModel(long Bytes, TimeSpan Rtt, int Uploads = 0) : LoadModel
{
    public const string Name = "upload";
    public override string Kind => Name;
    public override int Concurrency => 1;
    public override bool CountsBatches => true;
    public override TimeSpan? PathRtt => Rtt;
    public override bool MakesItsRequest => true;

    /// <summary>The uploads as a profile runs them: its count, and its size when it gives one.</summary>
    public override LoadModel ForProfile(LoadShape shape) => this with { Uploads = shape.Batches, Bytes = shape.Size ?? Bytes };

    public override string Describe() =>
        $"{Uploads} uploads of {Sizes.Format(Bytes)} each over HTTP/2 (h2c) through a latency proxy adding {DurationText.Format(Rtt)} RTT";

    public override IEnumerable<string> Problems()
    {
        if (Bytes is < Sizes.MinUpload or > Sizes.MaxUpload)
        {
            yield return "upload size must be from 1KB to 1GB.";
        }
        if (Rtt < TimeSpan.Zero || Rtt > Sizes.MaxRtt)
        {
            yield return "round-trip time must be from 0ms to 1s.";
        }
    }

    internal override ILoadModelRunner CreateRunner() => new UploadRunner(this);
}
