// The counter-cost A/B behind bench/counters/cost.sh. One process holds perflab's load engine and counter collector,
// as `perflab run` does: one continuous load against the SUT for the whole experiment, while the collector is switched
// on (B) and off (A) in phases, pairs ordered A B, B A, A B ... A phase first waits SETTLE seconds (the session
// starting or stopping in the SUT), then counts WINDOW seconds. Before the pairs, the load runs WARM seconds alone (the
// load engine's own start-up), then one collection of WARM seconds runs the collector's one-time start-up (loading
// TraceEvent, the tiered JIT's re-compiles), which `perflab run` pays once per process, in its first run.
// Prints one tab-separated line per phase: pair, kind, first measured unix second, requests in the window, SUT CPU
// ticks, this process's CPU milliseconds, counter samples recorded (B). The warm-up collection comes first, as pair 0
// of kind W, its window WARM seconds long. COUNTERS is the collector's providers, comma-separated, or "all".
// Usage: PerfLab.CounterCost <url> <sut-pid> <pairs> <window-s> <settle-s> <warm-s> <counters> [rate]
using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Load;

if (args.Length is < 7 or > 8)
{
    Console.Error.WriteLine("usage: PerfLab.CounterCost <url> <sut-pid> <pairs> <window-s> <settle-s> <warm-s> <counters> [rate]");
    return 2;
}
var url = args[0];
var pid = int.Parse(args[1], CultureInfo.InvariantCulture);
var pairs = int.Parse(args[2], CultureInfo.InvariantCulture);
var window = int.Parse(args[3], CultureInfo.InvariantCulture);
var settle = int.Parse(args[4], CultureInfo.InvariantCulture);
var warm = int.Parse(args[5], CultureInfo.InvariantCulture);
var counters = args[6] == "all" ? new CounterOptions() : new CounterOptions { Providers = [args[6]] };
LoadModel model = args.Length == 8 ? new OpenModel(double.Parse(args[7], CultureInfo.InvariantCulture), 256) : new ClosedModel(32);

var total = TimeSpan.FromSeconds((2 * warm) + (pairs * 2 * (settle + window + 2)) + 10);
var plan = new LoadPlan([new ScenarioPlan("cost", model, RequestFeed.Single(url))], total, TimeSpan.Zero, TimeSpan.FromSeconds(5));
using var stopLoad = new CancellationTokenSource();
var load = Task.Run(() => LoadEngine.RunAsync(plan, null, stopLoad.Token));
// The load engine's own start-up (its tiered JIT) first, so that the warm-up collection's CPU is the collector's.
await Task.Delay(TimeSpan.FromSeconds(warm));

var self = Process.GetCurrentProcess();
var phases = new List<(int Pair, char Kind, long First, long SutTicks, double SelfMs, int Samples)>();

phases.Add(await WarmUpAsync());
for (var pair = 1; pair <= pairs; pair++)
{
    foreach (var kind in pair % 2 == 1 ? "AB" : "BA")
    {
        phases.Add(await PhaseAsync(pair, kind));
    }
    Console.Error.Write($"\rpair {pair}/{pairs}");
}
Console.Error.WriteLine();
await stopLoad.CancelAsync();
var result = await load;
var timeline = result.Scenarios[0].Timeline.ToDictionary(p => p.UnixSecond, p => p.Requests);
foreach (var p in phases)
{
    var seconds = Enumerable.Range(0, p.Kind == 'W' ? warm : window).Select(i => p.First + i).ToList();
    if (seconds.Any(s => !timeline.ContainsKey(s)))
    {
        Console.Error.WriteLine($"pair {p.Pair} {p.Kind}: the load timeline misses seconds of the window ({result.IncompleteReason})");
        return 1;
    }
    Console.WriteLine(string.Join('\t', p.Pair, p.Kind, p.First, seconds.Sum(s => timeline[s]), p.SutTicks,
        p.SelfMs.ToString("F0", CultureInfo.InvariantCulture), p.Samples));
}
return 0;

async Task<(int, char, long, long, double, int)> PhaseAsync(int pair, char kind)
{
    var start = await UntilSecondAsync(DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 1);
    using var stop = new CancellationTokenSource();
    var collecting = kind == 'B' ? CounterCollector.CollectAsync(pid, counters, null, stop.Token) : null;
    var first = await UntilSecondAsync(start + settle);
    var cpu = CpuNow();
    await UntilSecondAsync(first + window);
    var (sut, selfMs) = CpuSince(cpu);
    var samples = 0;
    if (collecting is not null)
    {
        await stop.CancelAsync();
        samples = (await collecting).Samples.Count(s => s.UnixSeconds >= first && s.UnixSeconds < first + window);
    }
    return (pair, kind, first, sut, selfMs, samples);
}

// The collector's first session in this process, WARM seconds, measured like a phase: pair 0, kind W.
async Task<(int, char, long, long, double, int)> WarmUpAsync()
{
    var first = await UntilSecondAsync(DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 1);
    var cpu = CpuNow();
    var recording = await CounterCollector.CollectAsync(pid, counters with { Duration = TimeSpan.FromSeconds(warm) }, null, CancellationToken.None);
    await UntilSecondAsync(first + warm);
    var (sut, selfMs) = CpuSince(cpu);
    Console.Error.WriteLine($"collector warm-up: {warm} s, {recording.Samples.Count} samples");
    return (0, 'W', first, sut, selfMs, recording.Samples.Count);
}

// The SUT's CPU ticks (utime + stime) and this process's CPU time, now.
(long SutTicks, TimeSpan Self) CpuNow()
{
    self.Refresh();
    return (ProcStat.Read($"/proc/{pid}/stat").CpuTicks, self.TotalProcessorTime);
}

(long SutTicks, double SelfMs) CpuSince((long SutTicks, TimeSpan Self) before)
{
    var now = CpuNow();
    return (now.SutTicks - before.SutTicks, (now.Self - before.Self).TotalMilliseconds);
}

// Waits until the clock has reached the start of the given unix second (a timer may fire a little early: it waits on).
static async Task<long> UntilSecondAsync(long second)
{
    long left;
    while ((left = (second * 1000) - DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()) > 0)
    {
        await Task.Delay(TimeSpan.FromMilliseconds(left));
    }
    return second;
}
