using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Warmup;
using PerfLab.Experiments.Running.Databases;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>One variant of an alternating block: its SUT (started and confirmed), its identity and how it is measured.</summary>
public sealed record BlockParticipant(VariantDefinition Variant, RunIdentity Id, IRunningApp Sut, IReadOnlyDictionary<string, string> Info,
    LoadMeasurement Measurement)
{
    /// <summary>The measured database path its SUT reaches PostgreSQL through, when its conditions set a database RTT.</summary>
    public DatabasePathStats? DatabasePath { get; init; }

    /// <summary>What was confirmed of the variant when its app started, and what could not be.</summary>
    public VariantEffect? Effect { get; init; }

    /// <summary>Asked before each of its slots; throws when its variant is not in effect (an in-process block's header).</summary>
    public Func<CancellationToken, Task>? BeforeSlot { get; init; }
}

/// <summary>
/// A block whose variants take turns (<see cref="ProfileDefinition.Slots"/>): every variant's SUT is up at once, each
/// is warmed up in turn, then the measured window is served in slots, A B C, C B A, A B C ..., each slot after a short
/// unmeasured re-warm. On this 2-core machine throughput swings by ±10 % over tens of seconds whatever runs (two
/// identical SUTs measured one after the other differ as much as two variants); slots a few seconds long put every
/// variant in the same swings, so the paired comparison cancels them (docs/benchmarks/noise.md, "The noise taken apart, third round").
/// The counters run for the whole block on every SUT; each variant keeps the samples of its own slots. While one
/// variant is warmed up or measured, the others' SUTs are stopped (<see cref="IdleSuts"/>).
/// </summary>
public sealed class AlternatingBlock(ExperimentDefinition experiment, ProfileDefinition profile, IProgress<string> progress)
{
    /// <summary>
    /// Load before each slot's clock starts: the connections of a SUT that sat idle a few seconds reopen and its users
    /// reach full concurrency (its threads are still there: the pool keeps idle threads for 20 s).
    /// </summary>
    public static readonly TimeSpan SlotWarmup = TimeSpan.FromMilliseconds(500);

    /// <summary>A warm-up's measured part: the engine needs one; it is thrown away.</summary>
    private static readonly TimeSpan WarmupTail = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Whether an experiment's blocks take turns in slots under <paramref name="profile"/>: it has slots, and every
    /// scenario's model alternates.
    /// </summary>
    public static bool Applies(ExperimentDefinition experiment, ProfileDefinition profile) =>
        profile.Slots is not null && experiment.Scenarios.All(s => s.Model.AlternatesInSlots);

    public int Slots => profile.Slots ?? throw new InvalidOperationException("the profile has no slots");

    public TimeSpan SlotLength => profile.Duration / Slots;

    /// <summary>Warms up and measures the participants; one record per participant, in their order.</summary>
    public async Task<IReadOnlyList<RunRecord>> RunAsync(IReadOnlyList<BlockParticipant> participants, CancellationToken ct)
    {
        var watches = new List<TieringWatch>();
        foreach (var p in participants)
        {
            watches.Add(await TieringWatch.StartAsync(p.Sut, ct));
        }
        try
        {
            return await RunWatchedAsync(participants, watches, ct);
        }
        finally
        {
            foreach (var watch in watches)
            {
                await watch.DisposeAsync();
            }
        }
    }

    private async Task<IReadOnlyList<RunRecord>> RunWatchedAsync(IReadOnlyList<BlockParticipant> participants, List<TieringWatch> watches,
        CancellationToken ct)
    {
        var slots = participants.Select(_ => new List<LoadResult>()).ToList();
        var costs = participants.Select(_ => new List<CpuWindow?>()).ToList();
        var warmups = new LoadResult?[participants.Count];
        string? failure = null;
        var (_, recordings) = await WithCountersAsync(participants, async () =>
        {
            try
            {
                var plans = await PlansAsync(participants, ct);
                await WarmUpAsync(participants, plans, watches, warmups, ct);
                await MeasureAsync(participants, plans, slots, costs, ct);
            }
            catch (PerfLabException ex)
            {
                failure = ex.Message;
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
                // Ctrl+C: the slots measured so far are kept, the others' runs are recorded as interrupted.
            }
            return true;
        }, ct);

        var records = new List<RunRecord>();
        for (var i = 0; i < participants.Count; i++)
        {
            var p = participants[i];
            if (failure is not null || slots[i].Count == 0)
            {
                var kind = ct.IsCancellationRequested ? FailureKind.Interrupted : FailureKind.LoadFailed;
                records.Add(RunRecordBuilder.WithEffect(RunRecordBuilder.Failed(p.Id, new RunFailure(kind,
                    ct.IsCancellationRequested
                        ? "interrupted (Ctrl+C) before its slots"
                        : $"the load could not run: {failure ?? "no slot was measured"}",
                    p.Sut.TailOfLog(), p.Info)), p.Effect) with { DatabasePath = p.DatabasePath });
                continue;
            }
            var merged = SlotMerge.Merge(slots[i]) with { WarmupSeconds = warmups[i]?.WarmupSeconds ?? 0, Settled = warmups[i]?.Settled };
            var record = await p.Measurement.RecordAsync(p.Sut, p.Id, p.Info, (merged, OfSlots(recordings[i], slots[i])), ct);
            records.Add(RunRecordBuilder.WithEffect(LoadMeasurement.WithCost(record, costs[i]), p.Effect) with
            {
                Database = DatabaseOfSlots(recordings[i], slots[i]),
                DatabasePath = p.DatabasePath,
                Tiering = watches[i].Summarize(warmups[i]?.MeasuredFromUtc ?? merged.MeasuredFromUtc,
                    slots[i].Select(s => (s.MeasuredFromUtc, s.EndedUtc)).ToList()),
            });
        }
        return records;
    }

    /// <summary>
    /// Each participant's plan, its feeds fetched once for the whole block (every slot then serves the same list). The
    /// SUTs are asked at once: nothing is measured yet, and each compiles the code of its first request meanwhile.
    /// </summary>
    private async Task<IReadOnlyList<LoadPlan>> PlansAsync(IReadOnlyList<BlockParticipant> participants, CancellationToken ct) =>
        await Task.WhenAll(participants.Select(p =>
            FeedLoader.WithValuesFetchedAsync(ScenarioPlans.BuildPlan(experiment, p.Variant, profile, p.Sut), ct)));

    /// <summary>
    /// Whether a block of these variants warms them up all at once rather than in turn: when none of their runtimes tiers
    /// (<see cref="TieredWarmup.Applies"/>). Nothing is measured during a warm-up, and a warm-up that ends when the JIT
    /// goes quiet waits mostly on its own clock (the quiet seconds the rule asks for, the tail), so in turn those waits
    /// add up: three variants of gc spent 17-20 s of a 49 s block warming up one after the other, more than the 18 s they
    /// measured (docs/benchmarks/duty-cycle.md, "Where a block's time goes"). A runtime that tiers warms up in pulses whose
    /// pauses give its tier-1 worker the cores; another variant's pulse would take them, so those still take turns.
    /// </summary>
    public static bool WarmsUpAtOnce(ProfileDefinition profile, IEnumerable<VariantDefinition> variants) =>
        !variants.Any(v => TieredWarmup.Applies(profile, v));

    private async Task WarmUpAsync(IReadOnlyList<BlockParticipant> participants, IReadOnlyList<LoadPlan> plans, List<TieringWatch> watches,
        LoadResult?[] warmups, CancellationToken ct)
    {
        var atOnce = WarmsUpAtOnce(profile, participants.Select(p => p.Variant));
        if (atOnce)
        {
            // Their throughputs move with one another's: each ends when its JIT is quiet (the watch), not at a steady rate.
            await Task.WhenAll(participants.Select(async (p, i) =>
                warmups[i] = await WarmUpOneAsync(p, plans[i] with { WarmupWaitsForSteadyThroughput = false }, watches[i], ct)));
        }
        else
        {
            using var idle = new IdleSuts(participants.Select(p => p.Sut).ToList(), IdleSuts.StopByDefault);
            for (var i = 0; i < participants.Count && !ct.IsCancellationRequested; i++)
            {
                idle.Serve(i);
                warmups[i] = await WarmUpOneAsync(participants[i], plans[i], watches[i], ct);
            }
        }
        // An in-process block's variants are one process: nothing waits.
        var oneProcess = participants.Select(p => p.Sut.Pid).Distinct().Count() == 1;
        var stopped = IdleSuts.StopByDefault && !oneProcess ? ", the waiting SUTs stopped" : "";
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        var turns = profile.Window is { } shortWindow
            ? string.Create(inv, $"measuring {Slots} windows of {shortWindow.TotalMilliseconds:0} ms each, ")
                + "taking turns on held load, the waiting SUTs stopped"
            : string.Create(inv, $"measuring {Slots} slots of {SlotLength.TotalSeconds:0.#} s each, taking turns{stopped}");
        progress.Report(string.Create(inv,
            $"warmed up {(atOnce && participants.Count > 1 ? "at once " : "")}"
                + $"{string.Join(", ", participants.Select((p, i) => $"{p.Variant.Name} {warmups[i]?.WarmupSeconds ?? 0:0} s"))}; ")
            + turns);
    }

    /// <summary>One participant's warm-up: in pulses where its runtime tiers, else until the JIT is quiet and a tail.</summary>
    private async Task<LoadResult> WarmUpOneAsync(BlockParticipant participant, LoadPlan plan, TieringWatch watch, CancellationToken ct)
    {
        watch.WarmingUp();
        var load = participant.Measurement.Load;
        return TieredWarmup.Applies(profile, participant.Variant) && watch.Watching
            ? await TieredWarmup.RunAsync(async pulse => (await load.SendAsync(pulse, ct)).Merged, plan, watch, profile.Warmup, ct)
            : (await load.SendAsync(plan with { Duration = WarmupTail, TargetSettled = () => watch.Settled }, ct)).Merged;
    }

    /// <summary>The measured time: in slots of their own load runs, or in short windows on held load (<c>window:</c>).</summary>
    private async Task MeasureAsync(IReadOnlyList<BlockParticipant> participants, IReadOnlyList<LoadPlan> plans,
        List<List<LoadResult>> slots, List<List<CpuWindow?>> costs, CancellationToken ct)
    {
        var meters = await Task.WhenAll(participants.Select(p => p.Measurement.CostMeterAsync(p.Sut, ct)));
        if (profile.Window is { } window)
        {
            var measured = await new ShortWindows(window, Slots, progress).MeasureAsync(participants, plans, meters, ct);
            for (var i = 0; i < participants.Count; i++)
            {
                slots[i].Add(measured[i].Stretch);
                costs[i].AddRange(measured[i].Windows);
            }
            return;
        }
        var stretch = System.Diagnostics.Stopwatch.StartNew();
        await MeasureSlotsAsync(participants, plans.Select((plan, i) => plan with { Probe = meters[i] }).ToList(), slots,
            (i, slot) => costs[i].Add(meters[i].Take(slot.Scenarios.Sum(s => s.Requests))), ct);
        // What the slots' own load runs cost: the stretch against the seconds measured in it (docs/benchmarks/duty-cycle.md).
        progress.Report(string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"slots taken in {stretch.Elapsed.TotalSeconds:0.0} s, "
                + $"{slots.Sum(s => s.Sum(r => r.MeasuredSeconds)):0.0} s of them measured"));
    }

    /// <summary>The slots, in turns; <paramref name="measured"/> hears of each slot as it ends (its participant, its result).</summary>
    private async Task MeasureSlotsAsync(IReadOnlyList<BlockParticipant> participants, IReadOnlyList<LoadPlan> plans,
        List<List<LoadResult>> slots,
        Action<int, LoadResult> measured, CancellationToken ct)
    {
        using var idle = new IdleSuts(participants.Select(p => p.Sut).ToList(), IdleSuts.StopByDefault);
        for (var round = 0; round < Slots && !ct.IsCancellationRequested; round++)
        {
            foreach (var i in Turns(participants.Count, round))
            {
                if (ct.IsCancellationRequested || participants[i].Sut.HasExited)
                {
                    continue;
                }
                idle.Serve(i);
                if (participants[i].BeforeSlot is { } check)
                {
                    await check(ct);
                }
                var plan = plans[i] with { Warmup = SlotWarmup, Duration = SlotLength, WarmupUntilSteady = false };
                var slot = (await participants[i].Measurement.Load.SendAsync(plan, ct)).Merged;
                slots[i].Add(slot);
                measured(i, slot);
            }
        }
    }

    /// <summary>
    /// The traced stretch of each participant after the block, one
    /// after the other (their measurements decide whether to trace).
    /// </summary>
    public static async Task TraceAsync(IReadOnlyList<BlockParticipant> participants, IReadOnlyList<RunRecord> records,
        CancellationToken ct)
    {
        for (var i = 0; i < participants.Count && i < records.Count; i++)
        {
            await participants[i].Measurement.TraceAsync(participants[i].Sut, participants[i].Id, records[i], ct);
        }
    }

    /// <summary>
    /// The order of round <paramref name="round"/> (from 0): forwards, then
    /// backwards (A B C, C B A, ...), so no variant always goes first.
    /// </summary>
    public static IReadOnlyList<int> Turns(int participants, int round) =>
        round % 2 == 0 ? Enumerable.Range(0, participants).ToList() : Enumerable.Range(0, participants).Reverse().ToList();

    /// <summary>
    /// The counter samples of the variant's own slots: a sample at second s reports roughly [s-1, s), so a slot
    /// measured over [from, to] keeps the samples of seconds from+1 .. to.
    /// </summary>
    public static CounterRecording? OfSlots(CounterRecording? recording, IReadOnlyList<LoadResult> slots)
    {
        if (recording is null)
        {
            return null;
        }
        var windows = slots.Select(s => (From: s.MeasuredFromUtc.ToUnixTimeSeconds(), To: s.EndedUtc.ToUnixTimeSeconds())).ToList();
        bool Inside(long second) => windows.Any(w => second > w.From && second <= w.To);
        return recording with
        {
            Samples = recording.Samples.Where(s => Inside(s.UnixSeconds)).ToList(),
            Adjustments = recording.Adjustments.Where(a => windows.Any(w => a.UnixMs >= w.From * 1000 && a.UnixMs < (w.To + 1) * 1000))
                .ToList(),
        };
    }

    /// <summary>
    /// The database client's figures slot by slot (each slot is a contiguous window, as the figures assume), then
    /// per-request figures weighted by each slot's requests and the pool's means averaged over the slots.
    /// </summary>
    public static DatabaseClientStats? DatabaseOfSlots(CounterRecording? recording, IReadOnlyList<LoadResult> slots)
    {
        var parts = slots.Select(s => (
                Requests: s.Scenarios.Sum(r => r.Requests),
                Stats: DatabaseClientWindow.From(recording, s.MeasuredFromUtc, s.EndedUtc,
                s.Scenarios.Sum(r => r.Requests), s.Scenarios.SelectMany(r => r.Timeline))))
            .Where(p => p.Stats is not null && p.Requests > 0)
            .Select(p => (p.Requests, Stats: p.Stats!))
            .ToList();
        if (parts.Count == 0)
        {
            return null;
        }
        double total = parts.Sum(p => p.Requests);
        double Weighted(Func<DatabaseClientStats, double> f) => parts.Sum(p => f(p.Stats) * p.Requests) / total;
        double Mean(Func<DatabaseClientStats, double> f) => parts.Average(p => f(p.Stats));
        return new DatabaseClientStats
        {
            CommandsPerRequest = Weighted(d => d.CommandsPerRequest),
            CommandMsPerRequest = Weighted(d => d.CommandMsPerRequest),
            ConnectionsBusyMean = Mean(d => d.ConnectionsBusyMean),
            ConnectionsIdleMean = Mean(d => d.ConnectionsIdleMean),
            PendingConnectionRequestsMean = Mean(d => d.PendingConnectionRequestsMean),
        };
    }

    /// <summary>Runs <paramref name="body"/> with a counter session on every participant's SUT, all of them kept.</summary>
    private static async Task<(T Result, CounterRecording?[] Recordings)> WithCountersAsync<T>(IReadOnlyList<BlockParticipant> participants,
        Func<Task<T>> body, CancellationToken ct)
    {
        var recordings = new CounterRecording?[participants.Count];
        async Task<T> Nest(int i)
        {
            if (i == participants.Count)
            {
                return await body();
            }
            var (result, recording) = await CounterSession.WithCountersAsync(participants[i].Sut, () => Nest(i + 1), ct);
            recordings[i] = recording;
            return result;
        }
        return (await Nest(0), recordings);
    }
}
