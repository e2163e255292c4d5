using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;
using Spectre.Console;

namespace PerfLab.Cli;

/// <summary>`perflab counters ps|monitor|collect`: the runtime counters of a .NET process, as dotnet-counters names them.</summary>
public static class CountersCommand
{
    public static Command Create()
    {
        var command = new Command("counters",
            "Read the runtime counters (CPU, memory, GC, thread pool, locks, exceptions, ASP.NET Core, Kestrel) and " +
            "thread-pool adjustments of a running .NET process over EventPipe.");
        command.Subcommands.Add(CreatePs());
        command.Subcommands.Add(CreateMonitor());
        command.Subcommands.Add(CreateCollect());
        return command;
    }

    private static Command CreatePs()
    {
        var command = new Command("ps", "List the .NET processes that can be attached to (those publishing a diagnostics port).");
        command.SetAction(_ =>
        {
            var processes = DotnetProcesses.List();
            if (processes.Count == 0)
            {
                Console.WriteLine("no attachable .NET process found.");
            }
            foreach (var p in processes.Where(p => p.ProcessId != Environment.ProcessId))
            {
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{p.ProcessId,8}  {p.Name,-20}  {p.CommandLine}"));
            }
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static Command CreateMonitor()
    {
        var target = new ProcessTarget();
        var interval = IntervalOption("--refresh-interval");
        var source = SourceOption();
        var duration = DurationOption("Stop after this long (30s, 2m, 1h); until Ctrl+C when absent.");
        var counters = CounterSelection.Option();
        var command = new Command("monitor", "Show the counters live, refreshed every interval (plain lines when output is redirected).");
        target.AddTo(command);
        command.Options.Add(counters);
        command.Options.Add(interval);
        command.Options.Add(source);
        command.Options.Add(duration);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var spec = target.Read(pr);
            var selection = pr.GetValue(counters) ?? CounterSelection.All;
            var options = Options(selection, pr.GetValue(interval), pr.GetValue(source), pr.GetValue(duration));
            await using var opened = await ProcessTarget.OpenAsync(spec, ct);
            var recording = Console.IsOutputRedirected
                ? await CounterCollector.CollectAsync(opened.Process.ProcessId, options, new PlainLines(selection), ct)
                : await MonitorLiveAsync(opened.Process, options, selection, ct);
            return Ending(recording, outPath: null);
        });
        return command;
    }

    private static Command CreateCollect()
    {
        var target = new ProcessTarget();
        var interval = IntervalOption("--refresh-interval");
        var source = SourceOption();
        var duration = DurationOption("How long to collect (30s, 2m, 1h; default 30s).");
        var output = new Option<string>("--out", "-o")
        {
            Description = "The file to write (a file, not a folder); the format follows the extension (.json, "
                + ".csv) unless --format is given.",
            HelpName = "file",
            DefaultValueFactory = _ => "counters.json",
        };
        var format = new Option<string?>("--format")
        {
            Description = "json (everything: samples, sources, adjustments) or csv (one row per second).",
        };
        format.AcceptOnlyFromAmong("json", "csv");
        var counters = CounterSelection.Option();
        var command = new Command("collect", "Record the counters for a duration and write them to a JSON or CSV file.");
        target.AddTo(command);
        command.Options.Add(duration);
        command.Options.Add(counters);
        command.Options.Add(output);
        command.Options.Add(format);
        command.Options.Add(interval);
        command.Options.Add(source);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var outPath = pr.GetValue(output)!;
            var fileFormat = (pr.GetValue(format) is { } named
                    ? Enum.Parse<CounterFileFormat>(named, ignoreCase: true)
                    : CounterFiles.FormatFromExtension(outPath))
                ?? throw new PerfLabException($"cannot tell the format of '{outPath}': use a .json or .csv extension, or --format.",
                    ExitCode.Usage);
            var spec = target.Read(pr);
            var selection = pr.GetValue(counters) ?? CounterSelection.All;
            var options = Options(selection, pr.GetValue(interval), pr.GetValue(source), pr.GetValue(duration) ?? TimeSpan.FromSeconds(30));
            await using var opened = await ProcessTarget.OpenAsync(spec, ct);
            var process = opened.Process;
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"collecting counters of {process.ProcessId} ({process.Name}) for {options.Duration!.Value.TotalSeconds:0.#} s; Ctrl+C "
                    + $"stops and writes what was collected."));
            var recording = selection.Keep(await CounterCollector.CollectAsync(process.ProcessId, options, null, ct));
            // The file is written even when cancelled: Ctrl+C must not lose what was measured.
            await CounterFiles.WriteAsync(recording, outPath, fileFormat, CancellationToken.None);
            return Ending(recording, outPath);
        });
        return command;
    }

    private static CounterOptions Options(CounterSelection counters, TimeSpan? interval, string? source, TimeSpan? duration) => new()
    {
        Providers = counters.Providers,
        Interval = interval ?? TimeSpan.FromSeconds(1),
        Source = source is null ? RuntimeCounterSource.Auto : Enum.Parse<RuntimeCounterSource>(source, ignoreCase: true),
        Duration = duration,
    };

    private static int Ending(CounterRecording recording, string? outPath)
    {
        var seconds = (recording.EndedUnixMs - recording.StartedUnixMs) / 1000.0;
        var starvation = recording.Counters.Any(c => c.Name == CounterCatalog.StarvationCounter)
            ? $", {recording.Adjustments.Count(a => a.Reason == CounterNames.StarvationReason)} starvation injections"
            : "";
        var what = string.Create(CultureInfo.InvariantCulture, $"{recording.Samples.Count} samples{starvation} over {seconds:0.0} s")
            + (outPath is null ? "" : $", written to {outPath}");
        foreach (var warning in recording.Warnings)
        {
            Console.Error.WriteLine($"warning: {warning}");
        }
        switch (recording.Ending)
        {
            case CollectionEnding.Completed:
                Console.Error.WriteLine($"done: {what}.");
                return (int)ExitCode.Success;
            case CollectionEnding.Cancelled:
                Console.Error.WriteLine($"interrupted: {what}.");
                return (int)ExitCode.Interrupted;
            default:
                Console.Error.WriteLine($"error: {recording.EndingDetail}; kept {what}.");
                return (int)ExitCode.Failed;
        }
    }

    private static async Task<CounterRecording> MonitorLiveAsync(DotnetProcess process, CounterOptions options, CounterSelection selection,
        CancellationToken ct)
    {
        var latest = new LatestValues();
        var table = new Table().Border(TableBorder.Simple).AddColumn("counter").AddColumn(new TableColumn("value").RightAligned())
            .AddColumn("unit");
        CounterRecording? recording = null;
        await AnsiConsole.Live(table).StartAsync(async ctx =>
        {
            var collecting = CounterCollector.CollectAsync(process.ProcessId, options, latest, ct);
            while (!collecting.IsCompleted)
            {
                await Task.WhenAny(collecting, Task.Delay(250, CancellationToken.None));
                Render(table, process, selection.Definitions, latest);
                ctx.Refresh();
            }
            recording = await collecting;
        });
        return recording!;
    }

    private static void Render(Table table, DotnetProcess process, IReadOnlyList<CounterDefinition> definitions, LatestValues latest)
    {
        var (second, values) = latest.Read();
        table.Rows.Clear();
        var time = second is { } unix
            ? DateTimeOffset.FromUnixTimeSeconds(unix).UtcDateTime.ToString("HH:mm:ss 'UTC'", CultureInfo.InvariantCulture)
            : "waiting for the first sample...";
        table.Title = new TableTitle(string.Create(CultureInfo.InvariantCulture, $"{process.ProcessId} {process.Name}  {time}"));
        foreach (var definition in definitions)
        {
            var value = values.TryGetValue(definition.Name, out var v) ? CounterFiles.Format(v) : "-";
            var unit = definition.Kind == CounterKind.Rate ? definition.Unit + " / interval" : definition.Unit;
            table.AddRow(Markup.Escape(definition.Name), value, Markup.Escape(unit));
        }
    }

    // Keeps the last value of every counter: a counter absent from one second's sample still shows its last figure.
    private sealed class LatestValues : IProgress<CounterSample>
    {
        private readonly Lock _gate = new();
        private readonly Dictionary<string, double> _values = [];
        private long? _second;

        public void Report(CounterSample value)
        {
            lock (_gate)
            {
                _second = value.UnixSeconds;
                foreach (var (name, v) in value.Values)
                {
                    _values[name] = v;
                }
            }
        }

        public (long? Second, Dictionary<string, double> Values) Read()
        {
            lock (_gate)
            {
                return (_second, new Dictionary<string, double>(_values));
            }
        }
    }

    private sealed class PlainLines(CounterSelection selection) : IProgress<CounterSample>
    {
        public void Report(CounterSample value) =>
            Console.WriteLine(DateTimeOffset.FromUnixTimeSeconds(value.UnixSeconds).UtcDateTime
                .ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture)
                + " " + string.Join(' ', selection.Keep(value).Values.Select(kv => kv.Key + "=" + CounterFiles.Format(kv.Value))));
    }

    // --refresh-interval is dotnet-counters' name for it; a bare number is seconds there and here.
    private static Option<TimeSpan?> IntervalOption(string alias) => new("--interval", "-i", alias)
    {
        Description = "Sampling interval (1s, 500ms, 2s; a bare number is seconds, as dotnet-counters' --refresh-interval; default 1s).",
        HelpName = "duration",
        CustomParser = r => OptionChecks.Duration(r, "--interval", TimeSpan.FromMilliseconds(100), TimeSpan.FromHours(1)),
    };

    private static Option<TimeSpan?> DurationOption(string description)
    {
        // No DefaultValueFactory: help would show a default as 00:00:30; the verb applies it (see Collect).
        return new Option<TimeSpan?>("--duration", "-d")
        {
            Description = description,
            HelpName = "duration",
            CustomParser = r => OptionChecks.Duration(r, "--duration", TimeSpan.FromMilliseconds(1), TimeSpan.FromDays(7)),
        };
    }

    private static Option<string?> SourceOption()
    {
        var option = new Option<string?>("--source")
        {
            Description = "Where to read the runtime counters: auto (the default: the System.Runtime meter on .NET 9+, EventCounters "
                + "before), meter or eventcounters.",
        };
        option.AcceptOnlyFromAmong("auto", "meter", "eventcounters");
        return option;
    }
}
