using System.CommandLine;
using PerfLab.Common;
using PerfLab.Experiments.Running;
using PerfLab.Load;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>
/// <c>perflab load</c>: hey/wrk-style load against one URL (or URL template), closed, open, burst or ramp.
/// </summary>
public static class LoadCommand
{
    public static Command Create() => Create(new LoadOptions());

    private static Command Create(LoadOptions o)
    {
        var command = new Command("load", "Apply HTTP load to a URL and report throughput, latency percentiles and errors (like "
            + "wrk/hey; wrk2-style open model).");
        command.Arguments.Add(o.Url);
        foreach (var option in o.All)
        {
            command.Options.Add(option);
        }
        command.SetAction((pr, ct) => RunAsync(pr, o, ct));
        return command;
    }

    private static async Task<int> RunAsync(ParseResult pr, LoadOptions o, CancellationToken ct)
    {
        if (pr.GetValue(o.Hosts) is { } hostsFile)
        {
            return await RemoteLoadCommand.RunAsync(pr, hostsFile, LoadPlanBuilder.Build(o.Read(pr) with { AllowRemote = true }), ct);
        }
        var gates = ThresholdOptions.Parse(pr.GetValue(o.Thresholds));
        if (gates.FirstOrDefault(g => g.Metric is Threshold.Change or Threshold.NoWorse) is { } relative)
        {
            throw new PerfLabException($"threshold '{relative.Text}' compares against a baseline; perflab load measures one target (use "
                + "perflab run or compare-results).", ExitCode.Usage);
        }
        var plan = LoadPlanBuilder.Build(o.Read(pr));
        ThresholdOptions.EnsureScenariosExist(gates, plan.Scenarios.Select(s => s.Name));
        var asJson = pr.GetValue(o.Json);
        var result = await LoadDisplay.RunAsync(progress => LoadEngine.RunAsync(plan, progress, ct), asJson);
        if (pr.GetValue(o.Output) is { } file)
        {
            await File.WriteAllTextAsync(file.FullName, LoadSummary.ToJson(result), CancellationToken.None);
        }
        Console.Out.Write(asJson ? LoadSummary.ToJson(result) + Environment.NewLine : LoadSummary.ToText(result));
        var checks = Gate(result, gates);
        // With --json stdout is the result alone: the gates' table goes to stderr.
        ThresholdSection.WriteText(asJson ? Console.Error : Console.Out, checks);
        return (int)(ct.IsCancellationRequested ? ExitCode.Interrupted
            : result.Incomplete ? ExitCode.Failed
            : ThresholdGate.AllPassed(checks) ? ExitCode.Success : ExitCode.ThresholdsFailed);
    }

    /// <summary>Latency, RPS and error gates on each scenario of one load run.</summary>
    private static List<ThresholdCheck> Gate(LoadResult result, IReadOnlyList<Threshold> gates) =>
    [
        .. from gate in gates
           from s in result.Scenarios
           where gate.Covers(s.Name)
           select ThresholdGate.Check(gate, s.Name, [RunRecordBuilder.Stats(s)]),
    ];

    /// <summary>The options of `perflab load`, read into the engine's <see cref="LoadRequest"/>.</summary>
    private sealed class LoadOptions
    {
        public Argument<string> Url { get; } = new("url")
        {
            Description = "Target URL; may hold one {placeholder} filled from --values, --values-file or --values-url.",
        };
        public Option<int> Users { get; } = Positive(new Option<int>("--connections", "-c", "--users")
        {
            Description = "Connections, as wrk -c: each a virtual user (closed), the in-flight cap (open).",
            DefaultValueFactory = _ => 10,
        });
        public Option<TimeSpan?> Duration { get; } = DurationOption("--duration", "Measured duration after warm-up (e.g. 500ms, 30s, 2m); "
            + "with --requests only a cap (default 10m); burst: a cap (default 10m); ramp: default until the last step has run one "
            + "interval.",
            "-d");
        public Option<long?> Requests { get; } = Positive(new Option<long?>("--requests")
        {
            Description = "Stop after this many measured requests.",
        });
        public Option<double?> Rate { get; } = RateOption();
        public Option<string?> Model { get; } = ModelOption();
        public Option<int?> BurstSize { get; } = Positive(new Option<int?>("--burst-size")
        {
            Description = "Burst: requests sent at once (default 200, as seed 001).",
        });
        public Option<int?> Batches { get; } = Positive(new Option<int?>("--batches")
        {
            Description = "Burst: measured batches (default 10).",
        });
        public Option<int> WarmupBatches { get; } = WarmupBatchesOption();
        public Option<int?> RampStart { get; } = Positive(new Option<int?>("--ramp-start")
        {
            Description = "Ramp: users at the start (default: --connections).",
        });
        public Option<int?> RampStep { get; } = Positive(new Option<int?>("--ramp-step")
        {
            Description = "Ramp: users added per step (default 10).",
        });
        public Option<TimeSpan?> RampEvery { get; } = DurationOption("--ramp-every", "Ramp: time per step (default 10s).");
        public Option<int?> RampMax { get; } = Positive(new Option<int?>("--ramp-max") { Description = "Ramp: most users (default 100)." });
        public Option<TimeSpan?> Warmup { get; } = DurationOption("--warmup", "Load before measuring, excluded from statistics (default "
            + "0s); with --warmup-until-steady, the most it may last.", "-w");
        public Option<bool> Steady { get; } = new("--warmup-until-steady")
        {
            Description = "End the warm-up once throughput has settled (3 whole seconds within 5 % and flat), at most --warmup.",
        };
        public Option<TimeSpan?> Timeout { get; } = DurationOption("--timeout", "Per-request timeout, with its unit (default 5s).");
        public Option<string?> Threads { get; } = WrkThreadsOption();
        public Option<bool> Http2 { get; } = new("--http2")
        {
            Description = "HTTP/2 with prior knowledge (h2c) instead of HTTP/1.1 keep-alive.",
        };
        public Option<string[]> Values { get; } = new("--values")
        {
            Description = "Values for the URL placeholder, comma-separated or repeated.",
            AllowMultipleArgumentsPerToken = true,
        };
        public Option<string?> ValuesFile { get; } = new("--values-file")
        {
            Description = "File of placeholder values: a JSON array or one per line.",
        };
        public Option<string?> ValuesUrl { get; } = new("--values-url")
        {
            Description = "URL answering a JSON array of placeholder values, fetched once (e.g. /customer/orders/ids).",
        };
        public Option<bool> Random { get; } = new("--random") { Description = "Pick values at random (seeded) instead of in order." };
        public Option<int> Seed { get; } = new("--seed") { Description = "Seed for --random.", DefaultValueFactory = _ => 1 };
        public Option<bool> Json { get; } = new("--json") { Description = "Print only the result as JSON on stdout." };
        public Option<FileInfo?> Output { get; } = new("--out", "-o")
        {
            Description = "Also write the result as JSON to this file (a file, not a folder; written even when interrupted).",
            HelpName = "file",
        };
        public Option<bool> AllowRemote { get; } = new("--allow-remote")
        {
            Description = "Allow targets other than loopback (127.0.0.0/8, ::1, localhost).",
        };
        public Option<string?> Method { get; } = new("--method", "-X")
        {
            Description = "HTTP method, as curl -X (default: GET, or POST with a body).",
        };
        public Option<string[]> Headers { get; } = new("--header", "-H")
        {
            Description = "A request header \"Name: value\", as curl -H; repeat for more.",
        };
        public Option<string?> Body { get; } = new("--body")
        {
            Description = "Request body (Content-Type application/json unless -H sets one); {placeholder} is filled "
                + "from the values as in the URL.",
        };
        public Option<string?> BodyFile { get; } = new("--body-file")
        {
            Description = "Request body from a file, sent as its bytes; {placeholder} is filled as in --body.",
        };
        public Option<string[]> ExpectStatus { get; } = new("--expect-status")
        {
            Description = "Statuses that count as success, e.g. 201, 200,201 or 2xx (default: any below "
                + "400); any other counts as an error.",
            AllowMultipleArgumentsPerToken = true,
        };
        public Option<string[]> Thresholds { get; } = ThresholdOptions.Create(
            "A CI gate on the run: \"p99<250ms\", \"errors<1%\", \"rps>1000\"; repeatable. A failing gate exits with 5.");
        public Option<FileInfo?> Hosts { get; } = new("--hosts")
        {
            Description = "Send the load from the generators of this hosts file (load: [...]) over ssh, merged exactly; the target may be "
                + "the file's app host (see docs/hosts.md).",
        };
        public Option<string[]> ExpectJson { get; } = new("--expect-json")
        {
            Description = "A JSON value the response must hold, e.g. '$.id=5', '$.items[0].name=\"Bike\"' or '$.total' (present); a miss "
                + "counts as a check-json error. Repeatable.",
        };

        public IEnumerable<Option> All =>
        [
            Users, Duration, Requests, Rate, Model, BurstSize, Batches, WarmupBatches, RampStart, RampStep, RampEvery, RampMax,
            Warmup, Steady, Timeout, Threads, Http2, Values, ValuesFile, ValuesUrl, Random, Seed, Json, Output, AllowRemote,
            Method, Headers, Body, BodyFile, ExpectStatus, ExpectJson, Thresholds, Hosts,
            Spellings.RetiredLetter("-n", "--requests", "-n is --name, the process, on counters and trace, as dotnet-counters has it"),
        ];

        public LoadRequest Read(ParseResult pr) => new(pr.GetValue(Url)!)
        {
            Kind = pr.GetValue(Model),
            Users = pr.GetValue(Users),
            Duration = pr.GetValue(Duration),
            Requests = pr.GetValue(Requests),
            Rate = pr.GetValue(Rate),
            BurstSize = pr.GetValue(BurstSize),
            Batches = pr.GetValue(Batches),
            WarmupBatches = pr.GetValue(WarmupBatches),
            RampStart = pr.GetValue(RampStart),
            RampStep = pr.GetValue(RampStep),
            RampEvery = pr.GetValue(RampEvery),
            RampMax = pr.GetValue(RampMax),
            Warmup = pr.GetValue(Warmup),
            WarmupUntilSteady = pr.GetValue(Steady),
            Timeout = pr.GetValue(Timeout),
            Http2 = pr.GetValue(Http2),
            Values = pr.GetValue(Values) is { Length: > 0 } v
                ? [.. v.SelectMany(x => x.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))] : null,
            ValuesFile = pr.GetValue(ValuesFile),
            ValuesUrl = pr.GetValue(ValuesUrl),
            Random = pr.GetValue(Random),
            Seed = pr.GetValue(Seed),
            AllowRemote = pr.GetValue(AllowRemote),
            Method = pr.GetValue(Method),
            Headers = pr.GetValue(Headers) ?? [],
            Body = pr.GetValue(Body),
            BodyFile = pr.GetValue(BodyFile),
            ExpectStatus = pr.GetValue(ExpectStatus) ?? [],
            ExpectJson = pr.GetValue(ExpectJson) ?? [],
        };

        private static Option<double?> RateOption()
        {
            var rate = new Option<double?>("--rate", "-R")
            {
                Description = "Constant arrival rate in requests/s (open model, as wrk2 -R); implies --model open.",
            };
            rate.Check(v => v is not { } r || (r > 0 && double.IsFinite(r)), "--rate must be a positive number of requests per second.");
            return rate;
        }

        private static Option<string?> ModelOption()
        {
            var model = new Option<string?>("--model", "-m")
            {
                Description = "closed | open | burst | ramp (default: closed, or open with --rate, burst with "
                    + "--burst-size, ramp with --ramp-*).",
            };
            model.AcceptOnlyFromAmong([.. LoadPlanBuilder.CommandLineKinds]);
            return model;
        }

        /// <summary>
        /// wrk's -t (threads): perflab has no such option, and -t must not be read as something else (it was the
        /// timeout once, so `-t 2` meant 2 s). Hidden, it is there only to answer with what to write instead.
        /// </summary>
        private static Option<string?> WrkThreadsOption()
        {
            var threads = new Option<string?>("--threads", "-t") { Hidden = true };
            threads.Validators.Add(r => r.AddError(
                "-t/--threads is wrk's thread count; perflab load has none: one event loop serves every connection (socket " +
                "completions run inline, as wrk's loop). Give the connections with -c/--connections; the per-request timeout is " +
                "--timeout 2s."));
            return threads;
        }

        private static Option<int> WarmupBatchesOption()
        {
            var option = new Option<int>("--warmup-batches")
            {
                Description = "Burst: unmeasured batches first.",
                DefaultValueFactory = _ => 1,
            };
            option.Check(v => v >= 0, "--warmup-batches must not be negative.");
            return option;
        }
    }

    private static Option<TimeSpan?> DurationOption(string name, string description, params string[] aliases)
    {
        var option = new Option<TimeSpan?>(name, aliases)
        {
            Description = description,
            HelpName = "duration",
            // The warm-up may be 0; every other duration must be positive. A week bounds every run.
            // A bare number for the timeout could be seconds or milliseconds (and once was -t, wrk's threads): a unit is required.
            CustomParser = r => OptionChecks.Duration(r, name,
                name == "--warmup" ? TimeSpan.Zero : TimeSpan.FromMilliseconds(1), TimeSpan.FromDays(7),
                unitRequired: name == "--timeout"),
        };
        return option;
    }

    private static Option<T> Positive<T>(Option<T> option)
    {
        option.Check(v => v is null || Convert.ToDouble(v, System.Globalization.CultureInfo.InvariantCulture) > 0,
            $"{option.Name} must be positive.");
        return option;
    }
}
