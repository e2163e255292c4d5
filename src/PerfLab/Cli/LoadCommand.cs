using System.CommandLine;
using System.CommandLine.Parsing;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Cli;

/// <summary>
/// <c>perflab load</c>: hey/wrk-style load against one URL (or URL template), closed, open, burst or ramp.
/// </summary>
public static class LoadCommand
{
    /// <summary>A run given only a request count (-n) stops here at the latest.</summary>
    public static readonly TimeSpan CountRunTimeCap = TimeSpan.FromMinutes(10);

    public static Command Create()
    {
        var url = new Argument<string>("url") { Description = "Target URL; may hold one {placeholder} filled from --values, --values-file or --values-url." };
        var users = new Option<int>("--users", "-c", "--connections") { Description = "Virtual users (closed), connections = in-flight cap (open).", DefaultValueFactory = _ => 10 };
        var duration = DurationOption("--duration", "Measured duration after warm-up (e.g. 500ms, 30s, 2m); with -n only a cap (default 10m); burst: a cap (default 10m); ramp: default until the last step has run one interval.", "-d");
        var requests = new Option<long?>("--requests", "-n") { Description = "Stop after this many measured requests." };
        var rate = new Option<double?>("--rate", "-R") { Description = "Constant arrival rate in requests/s (open model, as wrk2 -R); implies --model open." };
        var model = new Option<string?>("--model", "-m") { Description = "closed | open | burst | ramp (default: closed, or open with --rate, burst with --burst-size, ramp with --ramp-*)." };
        model.AcceptOnlyFromAmong("closed", "open", "burst", "ramp");
        var burstSize = new Option<int?>("--burst-size") { Description = "Burst: requests sent at once (default 200, as seed 001)." };
        var batches = new Option<int?>("--batches") { Description = "Burst: measured batches (default 10)." };
        var warmupBatches = new Option<int>("--warmup-batches") { Description = "Burst: unmeasured batches first.", DefaultValueFactory = _ => 1 };
        var rampStart = new Option<int?>("--ramp-start") { Description = "Ramp: users at the start (default: --users)." };
        var rampStep = new Option<int?>("--ramp-step") { Description = "Ramp: users added per step (default 10)." };
        var rampEvery = DurationOption("--ramp-every", "Ramp: time per step (default 10s).");
        var rampMax = new Option<int?>("--ramp-max") { Description = "Ramp: most users (default 100)." };
        var warmup = DurationOption("--warmup", "Load before measuring, excluded from statistics (default 0s).", "-w");
        var timeout = DurationOption("--timeout", "Per-request timeout (default 5s).", "-t");
        var http2 = new Option<bool>("--http2") { Description = "HTTP/2 with prior knowledge (h2c) instead of HTTP/1.1 keep-alive." };
        var values = new Option<string[]>("--values") { Description = "Values for the URL placeholder, comma-separated or repeated.", AllowMultipleArgumentsPerToken = true };
        var valuesFile = new Option<string?>("--values-file") { Description = "File of placeholder values: a JSON array or one per line." };
        var valuesUrl = new Option<string?>("--values-url") { Description = "URL answering a JSON array of placeholder values, fetched once (e.g. /customer/orders/ids)." };
        var random = new Option<bool>("--random") { Description = "Pick values at random (seeded) instead of in order." };
        var seed = new Option<int>("--seed") { Description = "Seed for --random.", DefaultValueFactory = _ => 1 };
        var json = new Option<bool>("--json") { Description = "Print only the result as JSON on stdout." };
        var output = new Option<FileInfo?>("--out", "-o") { Description = "Also write the result as JSON to this file (written even when interrupted)." };
        var allowRemote = new Option<bool>("--allow-remote") { Description = "Allow targets other than loopback (127.0.0.0/8, ::1, localhost)." };

        Positive(users);
        Positive(requests);
        Positive(burstSize);
        Positive(batches);
        Positive(rampStart);
        Positive(rampStep);
        Positive(rampMax);
        rate.Check(v => v is not { } r || (r > 0 && double.IsFinite(r)), "--rate must be a positive number of requests per second.");
        warmupBatches.Check(v => v >= 0, "--warmup-batches must not be negative.");

        var command = new Command("load", "Apply HTTP load to a URL and report throughput, latency percentiles and errors (like wrk/hey; wrk2-style open model).");
        command.Arguments.Add(url);
        foreach (var o in new Option[] { users, duration, requests, rate, model, burstSize, batches, warmupBatches, rampStart, rampStep, rampEvery, rampMax, warmup, timeout, http2, values, valuesFile, valuesUrl, random, seed, json, output, allowRemote })
        {
            command.Options.Add(o);
        }

        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var target = pr.GetValue(url)!;
            var givenValues = pr.GetValue(values) is { Length: > 0 } v ? v.SelectMany(x => x.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries)).ToArray() : null;
            var kind = pr.GetValue(model) ?? (pr.GetValue(rate) is not null ? "open"
                : pr.GetValue(burstSize) is not null || pr.GetValue(batches) is not null ? "burst"
                : pr.GetValue(rampStart) is not null || pr.GetValue(rampStep) is not null || pr.GetValue(rampMax) is not null || pr.GetValue(rampEvery) is not null ? "ramp"
                : "closed");
            var userCount = pr.GetValue(users);
            var givenDuration = pr.GetValue(duration);
            var count = pr.GetValue(requests);

            LoadModel loadModel;
            TimeSpan runDuration;
            switch (kind)
            {
                case "open":
                    loadModel = new OpenModel(pr.GetValue(rate) ?? throw new PerfLabException("--model open needs --rate.", ExitCode.Usage), userCount);
                    runDuration = givenDuration ?? (count is null ? TimeSpan.FromSeconds(10) : CountRunTimeCap);
                    break;
                case "burst":
                    loadModel = new BurstModel(pr.GetValue(burstSize) ?? 200, pr.GetValue(batches) ?? 10, pr.GetValue(warmupBatches));
                    runDuration = givenDuration ?? CountRunTimeCap;
                    break;
                case "ramp":
                    var every = pr.GetValue(rampEvery) ?? TimeSpan.FromSeconds(10);
                    var ramp = new RampModel(pr.GetValue(rampStart) ?? userCount, pr.GetValue(rampStep) ?? 10, every, pr.GetValue(rampMax) ?? 100);
                    if (ramp.MaxUsers < ramp.StartUsers)
                    {
                        throw new PerfLabException("--ramp-max must be at least --ramp-start.", ExitCode.Usage);
                    }
                    loadModel = ramp;
                    runDuration = givenDuration ?? every * ramp.StepCount;
                    break;
                default:
                    loadModel = new ClosedModel(userCount);
                    runDuration = givenDuration ?? (count is null ? TimeSpan.FromSeconds(10) : CountRunTimeCap);
                    break;
            }

            var feed = new RequestFeed(target)
            {
                Values = givenValues,
                ValuesFile = pr.GetValue(valuesFile),
                ValuesUrl = pr.GetValue(valuesUrl) is { } vu && vu.StartsWith('/') ? new Uri(TargetGuard.ParseTarget(target.Split('{')[0], "url"), vu).ToString() : pr.GetValue(valuesUrl),
                Order = pr.GetValue(random) ? FeedOrder.Random : FeedOrder.Circular,
                Seed = pr.GetValue(seed),
            };
            var plan = new LoadPlan([new ScenarioPlan("default", loadModel, feed) { MaxRequests = count }], runDuration, pr.GetValue(warmup) ?? TimeSpan.Zero, pr.GetValue(timeout) ?? TimeSpan.FromSeconds(5))
            {
                Http2 = pr.GetValue(http2),
                AllowRemote = pr.GetValue(allowRemote),
            };
            // Checked here too so that a refused or malformed target is reported before any output starts.
            var parsed = TargetGuard.ParseTarget(target.Replace("{", "", StringComparison.Ordinal).Replace("}", "", StringComparison.Ordinal), "url");
            TargetGuard.EnsureAllowed(parsed, plan.AllowRemote);

            var asJson = pr.GetValue(json);
            var result = await LoadDisplay.RunAsync(progress => LoadEngine.RunAsync(plan, progress, ct), asJson);

            if (pr.GetValue(output) is { } file)
            {
                await File.WriteAllTextAsync(file.FullName, LoadSummary.ToJson(result), CancellationToken.None);
            }
            Console.Out.Write(asJson ? LoadSummary.ToJson(result) + Environment.NewLine : LoadSummary.ToText(result));
            return (int)(ct.IsCancellationRequested ? ExitCode.Interrupted : result.Incomplete ? ExitCode.Failed : ExitCode.Success);
        });
        return command;
    }

    private static Option<TimeSpan?> DurationOption(string name, string description, params string[] aliases)
    {
        var option = new Option<TimeSpan?>(name, aliases)
        {
            Description = description,
            HelpName = "duration",
            // The warm-up may be 0; every other duration must be positive. A week bounds every run.
            CustomParser = r => OptionChecks.Duration(r, name, name == "--warmup" ? TimeSpan.Zero : TimeSpan.FromMilliseconds(1), TimeSpan.FromDays(7)),
        };
        return option;
    }

    private static void Positive<T>(Option<T> option) =>
        option.Check(v => v is null || Convert.ToDouble(v, System.Globalization.CultureInfo.InvariantCulture) > 0, $"{option.Name} must be positive.");
}
