using System.CommandLine;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Experiments.Running.Capacity;

namespace PerfLab.Cli;

/// <summary>
/// `perflab capacity URL --slo "p99&lt;100ms"`: the highest arrival rate one URL sustains within a latency and error
/// SLO, found by open-model steps of rising rate and a bisection around the first that breaks.
/// </summary>
public static class CapacityCommand
{
    public static Command Create()
    {
        var url = new Argument<string>("url") { Description = "The URL to load (loopback only, unless --allow-remote)." };
        var slo = new Option<string>("--slo")
        {
            Description = "The latency bound each step must meet: p99<100ms, p95<=250ms, mean<20ms ...",
            Required = true,
        };
        var errors = new Option<string?>("--errors")
        {
            Description = $"The error-rate bound each step must meet (default {CapacitySlo.DefaultErrors}).",
        };
        var from = new Option<double>("--from")
        {
            Description = "The first rate tried, in requests/s; each following step doubles it.",
            DefaultValueFactory = _ => 50,
        }.Check(v => v > 0 && double.IsFinite(v), "--from must be a positive number of requests per second.");
        var max = new Option<double>("--max")
        {
            Description = "The highest rate tried, in requests/s.",
            DefaultValueFactory = _ => 100_000,
        }.Check(v => v > 0 && double.IsFinite(v), "--max must be a positive number of requests per second.");
        var duration = DurationOption("--duration", "Measured time of each step (long enough to see a queue grow).", DefaultDuration, "-d");
        var warmup = DurationOption("--warmup", "Load before each step's measured window, excluded from its figures.", DefaultWarmup, "-w");
        var connections = new Option<int?>("--connections", "-c")
        {
            Description = "The in-flight cap (connections) of every step (default: twice the SLO's latency times the rate, plus 16).",
        }.Check(v => v is null or (>= 1 and <= 10_000), "--connections must be from 1 to 10000.");
        var html = new Option<FileInfo?>("--html")
        {
            Description = "Also write the latency-against-rate chart (with the SLO line) and every step to this HTML file.",
        };
        var (allowRemote, hosts) = PlacementOptions();
        var gates = GateOption();
        var json = new Option<bool>("--json")
        {
            Description = "Print only the result as JSON on stdout (capacityRps, its interval capacityLowRps to capacityHighRps, "
                + "the bracket, every step); progress goes to stderr.",
        };

        var command = new Command("capacity", "Find the highest request rate a URL sustains within an SLO (open-model steps, "
            + "then bisection to within 5 %, the boundary tried again), with its interval.");
        command.Arguments.Add(url);
        foreach (var option in new Option[]
            { slo, errors, from, max, duration, warmup, connections, html, allowRemote, hosts, gates, json })
        {
            command.Options.Add(option);
        }
        command.SetAction(async (pr, ct) =>
        {
            var range = RangeOf(pr.GetValue(from), pr.GetValue(max));
            var objective = CapacitySlo.Parse(pr.GetValue(slo), pr.GetValue(errors));
            var settings = new CapacityStepSettings(pr.GetValue(duration) ?? DefaultDuration, pr.GetValue(warmup) ?? DefaultWarmup,
                pr.GetValue(connections));
            var target = new CapacityTarget(pr.GetValue(url)!, pr.GetValue(allowRemote), pr.GetValue(hosts), Gates(pr.GetValue(gates)));
            return await RunAsync(target, objective, range, settings, pr.GetValue(json), pr.GetValue(html), ct);
        });
        return command;
    }

    /// <summary>The URL searched, whether it may be off loopback (--allow-remote), the hosts file its load comes from, and
    /// the gates its answer must pass.</summary>
    private sealed record CapacityTarget(string Url, bool AllowRemote, FileInfo? Hosts, IReadOnlyList<Threshold> Gates);

    private static Option<string[]> GateOption() => new("--threshold")
    {
        Description = "A CI gate on the answer, e.g. \"capacity>=400\" (requests per second sustained within the SLO), read on "
            + "the capacity interval's lower end, so a busy machine that widened the interval can fail it; repeatable. A failing "
            + "gate exits with 5.",
        HelpName = "gate",
    };

    // Read before any load: a gate this verb cannot check is a usage error, not a surprise after the search.
    private static IReadOnlyList<Threshold> Gates(string[]? texts) => [.. (texts ?? []).Select(text =>
        Threshold.Parse(text) is { } gate && gate.Metric == Threshold.Capacity
            ? gate
            : throw new PerfLabException($"perflab capacity gates its answer only: --threshold \"capacity>=N\" (got '{text}'); "
                + "latency and error bounds are its --slo and --errors.", ExitCode.Usage))];

    /// <summary>Each gate checked on the answer, printed; 5 when one failed.</summary>
    private static ExitCode CheckGates(IReadOnlyList<Threshold> gates, string url, CapacityResult result, TextWriter log)
    {
        var checks = gates.Select(g => ThresholdGate.Check(g, url, result.CapacityLowRps is { } c ? [c] : [],
            "no capacity found (no rate held every time it was tried)")).ToList();
        foreach (var check in checks)
        {
            var observed = result.CapacityLowRps is null ? check.Observed : check.Observed + " (the interval's lower end)";
            log.WriteLine($"gate {check.Threshold}: {observed}, {(check.Passed ? "passed" : "FAILED")}");
        }
        return ThresholdGate.AllPassed(checks) ? ExitCode.Success : ExitCode.ThresholdsFailed;
    }

    private static async Task<int> RunAsync(CapacityTarget target, CapacitySlo slo, CapacityRange range, CapacityStepSettings settings,
        bool asJson, FileInfo? html, CancellationToken ct)
    {
        var url = target.Url;
        var log = asJson ? Console.Error : Console.Out;
        var load = await LoadFromAsync(target, ct);
        log.WriteLine(CapacityText.Header(url, slo.Describe(), settings.Duration.TotalSeconds, settings.Warmup.TotalSeconds));
        var probe = CapacityProbe.ForUrl(url, slo, settings, target.AllowRemote || target.Hosts is not null, load);
        var result = await CapacitySearch.RunAsync(url, slo, range, settings,
            async (index, phase, rate, token) => (await probe.RunAsync(index, phase, rate, token)).Step,
            step => log.WriteLine(CapacityText.Step(step, slo.Latency.Metric)), ct);
        log.WriteLine(CapacityText.Answer(result));
        if (html is not null)
        {
            await File.WriteAllTextAsync(html.FullName, CapacityChart.Html(result), CancellationToken.None);
            log.WriteLine($"chart: {html.FullName}");
        }
        if (asJson)
        {
            Console.Out.WriteLine(CapacityText.ToJson(result));
        }
        var gated = CheckGates(target.Gates, url, result, log);
        return (int)(ct.IsCancellationRequested ? ExitCode.Interrupted
            : result.Outcome is CapacityOutcome.Incomplete ? ExitCode.Failed
            : gated != ExitCode.Success ? gated
            : result.Outcome is CapacityOutcome.BelowFrom ? ExitCode.Failed
            : ExitCode.Success);
    }

    private static CapacityRange RangeOf(double from, double max) => max >= from
        ? new CapacityRange(from, max)
        : throw new PerfLabException(string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"--max ({max:0.##}) is below --from ({from:0.##}): give a range that rises."), ExitCode.Usage);

    private static (Option<bool> AllowRemote, Option<FileInfo?> Hosts) PlacementOptions() => (
        new Option<bool>("--allow-remote")
        {
            Description = "Allow a URL off loopback (a server you own: the search sends it its highest rate).",
        },
        new Option<FileInfo?>("--hosts")
        {
            Description = "Send each step from the generators of this hosts file (load:), their shares merged; the URL must be "
                + "its app host (see docs/hosts.md).",
            HelpName = "hosts.yaml",
        });

    /// <summary>
    /// Refused before anything is printed or sent: a URL off loopback is a server the user says they own (--allow-remote)
    /// or the hosts file's app host; with a hosts file, its generators checked and holding perflab.
    /// </summary>
    private static async Task<Hosts.LoadSource> LoadFromAsync(CapacityTarget target, CancellationToken ct)
    {
        if (target.Hosts is null)
        {
            Load.TargetGuard.EnsureAllowed(Load.TargetGuard.ParseTarget(target.Url, "capacity"), target.AllowRemote);
            return Hosts.LoadSource.Here;
        }
        var file = Hosts.HostsFile.Read(target.Hosts.FullName);
        await RemoteLoadCommand.EnsureTargetIsAppHostAsync(file, [target.Url], ct);
        // The one route that checks generators and copies perflab to them, as `load --hosts` and `run --hosts` take.
        return await Hosts.Placements.GeneratorsAsync(file, new InlineProgress<string>(Console.Error.WriteLine), ct);
    }

    private static readonly TimeSpan DefaultDuration = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan DefaultWarmup = TimeSpan.FromSeconds(2);

    // No DefaultValueFactory: help would show the default as 00:00:10 instead of the 10s a user types; the verb applies it.
    private static Option<TimeSpan?> DurationOption(string name, string description, TimeSpan fallback, string alias) => new(name, alias)
    {
        Description = description + $" (default {fallback.TotalSeconds:0}s)",
        HelpName = "duration",
        CustomParser = r => OptionChecks.Duration(r, name, name == "--warmup" ? TimeSpan.Zero : TimeSpan.FromMilliseconds(500),
            TimeSpan.FromHours(1)) ?? fallback,
    };
}
