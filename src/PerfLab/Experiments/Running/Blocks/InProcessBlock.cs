using System.Net.Http.Json;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Definitions;
using PerfLab.Hosts;
using PerfLab.Results;
using PerfLab.SutProcesses;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>
/// The start of an in-process block (<see cref="BlockMethod.InProcess"/>): one built-in SUT, started with
/// Sut:PerRequestVariants and a token made for it, serves every variant of the block; each variant is a participant of
/// an <see cref="AlternatingBlock"/> whose requests carry its switches in <see cref="VariantHeader"/>, so the variants
/// take turns in slots on the one warm process. Before each slot, /info asked with the variant's header must report
/// the variant's switches (as a fresh process's /info is checked at its start). Each process is its own pair: its own
/// part of the cost (up to 25 % between two fresh SUTs of one block, docs/cost.md) is the same in every variant's slots.
/// </summary>
internal sealed class InProcessBlock(ConditionedStarts starts, Measurements measurements, IRunObserver observer)
{
    /// <summary>The SUT's request header naming a request's switches (PerfLab.Sut's RequestVariants.Header).</summary>
    public const string VariantHeader = "X-PerfLab-Variant";

    /// <summary>As SutProcess waits for /info: a first answer on a busy host (load average 60) took over 10 s.</summary>
    private static readonly TimeSpan InfoTimeout = TimeSpan.FromSeconds(60);

    /// <summary>The profile an in-process block runs under: its slots, or one slot per variant when the profile has none.</summary>
    public static ProfileDefinition Profile(ExperimentDefinition experiment, ProfileDefinition profile) =>
        experiment.Method.OneProcess && profile.Slots is null ? profile with { Slots = 1 } : profile;

    /// <summary>The switches a variant's requests carry: its per-request settings, "Serializer=newtonsoft; Logging=default".</summary>
    public static string HeaderOf(VariantDefinition variant) => string.Join("; ", variant.Settings
        .Where(s => BlockMethod.IsPerRequest(s.Key))
        .Select(s => $"{(s.Key.StartsWith("Sut:", StringComparison.OrdinalIgnoreCase) ? s.Key[4..] : s.Key)}={s.Value}"));

    /// <summary>
    /// Starts the block's one SUT and makes its participants (one per variant, in block order); false when Ctrl+C came
    /// first. When the SUT does not start, every variant's run is recorded failed with the reason.
    /// </summary>
    public async Task<bool> StartAsync(BlockRun block, int first, IReadOnlyList<RunPosition> positions, StartedBlock started,
        CancellationToken ct)
    {
        foreach (var position in positions)
        {
            observer.RunStarting(position);
        }
        var experiment = block.Experiment;
        var shared = SharedVariant(block.Order[0]);
        var id = new RunIdentity(shared.Name, block.Number, first, DateTimeOffset.UtcNow);
        var conditioned = await starts.OpenConditionsAsync(experiment, shared, id, ct);
        if (conditioned.Path is not null)
        {
            started.Paths.Add(conditioned.Path);
        }
        var token = SutOrder.NewToken();
        var start = conditioned.Failed is null
            ? await starts.StartSutAsync(experiment, conditioned, block.Number, ct, token)
            : conditioned.AsStart();
        var ids = block.Order.Select((v, i) => new RunIdentity(v.Name, block.Number, first + i, DateTimeOffset.UtcNow)).ToList();
        if (start.Failed is { } failed)
        {
            for (var i = 0; i < block.Order.Count; i++)
            {
                started.Records[i] = failed with { Variant = ids[i].Variant, Order = ids[i].Order };
            }
            return !ct.IsCancellationRequested;
        }
        observer.Report($"in-process block: one SUT (pid {start.Sut!.Pid}) serves "
            + $"{string.Join(", ", block.Order.Select(v => v.Name))}, each request's variant by its {VariantHeader} header");
        for (var i = 0; i < block.Order.Count; i++)
        {
            // The profile's environment, as the process got it (every variant's is the same: BlockMethodReader).
            var variant = block.Order[i] with { Env = conditioned.Variant.Env };
            var app = new VariantRequests(start.Sut, token, HeaderOf(variant), owns: i == 0);
            var effect = await CheckedAsync(app, variant, ct);
            var measurement = measurements.ThroughLoadEngine(block, variant);
            started.Participants.Add(new BlockParticipant(variant, ids[i], app, effect.Observed, measurement)
            {
                DatabasePath = start.Path?.Stats,
                Effect = start.Effect is { } shown ? VariantEffect.Combine(effect, shown) : effect,
                BeforeSlot = slotCt => CheckedAsync(app, variant, slotCt),
            });
        }
        return !ct.IsCancellationRequested;
    }

    /// <summary>The variant the one process starts as: the block's process-wide settings, and the per-request switch on.</summary>
    private static VariantDefinition SharedVariant(VariantDefinition first) => first with
    {
        Name = "in-process",
        Settings = first.Settings.Where(s => !BlockMethod.IsPerRequest(s.Key))
            .Append(new(BlockMethod.PerRequestSwitch, "true")).ToDictionary(),
    };

    /// <summary>
    /// /info asked as the variant's requests are sent (its header, the token): what it reports must be the variant's
    /// switches, else the block fails (<see cref="PerfLabException"/>) before a slot measures the wrong variant.
    /// </summary>
    private static async Task<VariantEffect> CheckedAsync(VariantRequests app, VariantDefinition variant, CancellationToken ct)
    {
        SutInfo info;
        try
        {
            using var client = app.CreateClient(InfoTimeout);
            using var request = new HttpRequestMessage(HttpMethod.Get, "/info");
            foreach (var (name, value) in app.RequestHeaders)
            {
                request.Headers.Add(name, value);
            }
            using var response = await client.SendAsync(request, ct);
            response.EnsureSuccessStatusCode();
            info = await response.Content.ReadFromJsonAsync(SutInfoJsonContext.Default.SutInfo, ct)
                ?? throw new PerfLabException("the SUT answered /info with nothing.", ExitCode.Failed);
        }
        catch (Exception ex) when (ex is HttpRequestException or System.Text.Json.JsonException
            || (ex is TaskCanceledException && !ct.IsCancellationRequested))
        {
            throw new PerfLabException($"the SUT did not answer /info for {variant.Name}: {ex.Message}", ExitCode.Failed, ex);
        }
        var check = VariantCheck.Check(new SutLaunch(variant.Settings, new Dictionary<string, string>(), null, variant.Framework), info);
        if (check.Mismatches.Count > 0 || !info.PerRequestVariants)
        {
            throw new PerfLabException($"{variant.Name} was not in effect for its requests ({VariantHeader}: {HeaderOf(variant)}): "
                + string.Join("; ", check.Mismatches.DefaultIfEmpty("the SUT does not serve per-request variants")), ExitCode.Failed);
        }
        // The process-wide part (framework, GC, the switch itself) was confirmed once, at the process's start.
        var perRequest = check.Confirmed.Where(c =>
            BlockMethod.PerRequestSettings.Any(k => c.StartsWith(k + " ", StringComparison.Ordinal)));
        return new VariantEffect([.. perRequest.Select(c => c + " per request")], [], [], info.ToMap());
    }

    /// <summary>
    /// The one process as a variant sees it: every request perflab sends carries the variant's header and the token;
    /// everything else is the process's. Only the first variant's view stops the process when disposed.
    /// </summary>
    private sealed class VariantRequests(IRunningApp process, string token, string header, bool owns) : IRunningApp
    {
        public Uri BaseAddress => process.BaseAddress;
        public int Pid => process.Pid;
        public bool HasExited => process.HasExited;
        public int ExitCode => process.ExitCode;

        // A SUT placed on another host already carries its order's token; the process honours that one.
        public IReadOnlyList<KeyValuePair<string, string>> RequestHeaders =>
        [
            .. process.RequestHeaders,
            .. process.RequestHeaders.Any(h => h.Key.Equals(SutOrder.TokenHeader, StringComparison.OrdinalIgnoreCase))
                ? Array.Empty<KeyValuePair<string, string>>()
                : [new(SutOrder.TokenHeader, token)],
            new(VariantHeader, header),
        ];

        public string TailOfLog(int lines = 15) => process.TailOfLog(lines);
        public HttpClient CreateClient(TimeSpan timeout, Uri? through = null) => process.CreateClient(timeout, through);
        public Task<CounterRecording> CollectCountersAsync(CounterOptions options, IProgress<CounterSample>? live,
            CancellationToken ct) => process.CollectCountersAsync(options, live, ct);
        public long? CpuNanoseconds() => process.CpuNanoseconds();
        public Task<TracedStretch> TraceAsync(TimeSpan length, string path, CancellationToken ct) => process.TraceAsync(length, path, ct);
        public Task<IAsyncDisposable?> WatchJitAsync(Action<long, OptimizationTier> onCompiled, Action<int> onBackground,
            CancellationToken ct) => process.WatchJitAsync(onCompiled, onBackground, ct);
        public Task<VariantEffect> CheckVariantAsync(CancellationToken ct) => process.CheckVariantAsync(ct);
        public ValueTask DisposeAsync() => owns ? process.DisposeAsync() : ValueTask.CompletedTask;
    }
}
