using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.History;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

/// <summary>`perflab history show`: per variant and metric the series by commit, with its change points.</summary>
internal static class HistoryShowCommand
{
    public static Command Create()
    {
        var experiment = new Argument<string?>("EXPERIMENT")
        {
            Description = "Only this experiment (default: all).", Arity = ArgumentArity.ZeroOrOne,
        };
        var store = HistoryCommand.StoreOption();
        var metric = MetricOption();
        var scenario = new Option<string>("--scenario")
        {
            Description = "The scenario whose figures to show; 'all' (the default) is all scenarios together.",
            DefaultValueFactory = _ => Metric.AllScenarios,
        };
        var since = new Option<string?>("--since")
        {
            Description = "Only runs started since then: a span back from now (30d, 2w, 12h) or a date (2026-11-01).",
            HelpName = "span|date",
        };
        var machine = MachineOption();
        var minSegment = new Option<int>("--min-segment")
        {
            Description = "The fewest runs between two change points (and before the first, after the last); at least 2.",
            DefaultValueFactory = _ => 3,
        };
        var html = new Option<string?>("--html") { Description = "Also write one HTML page with a chart per series.", HelpName = "file" };
        var junit = new Option<string?>("--junit")
        {
            Description = "Also write JUnit XML: a test case per series, failed by a change point for the worse that appears "
                + "with the newest run; the exit code is then 5.",
            HelpName = "file",
        };
        var repo = RepoOption();
        var json = new Option<bool>("--json") { Description = "Print the series and change points as JSON on stdout." };
        var command = new Command("show", "Print each variant's figures by commit, oldest first, and the change points found in them: "
            + "commit range, size with its 95 % interval. A change point for the worse new with the newest run exits with 5.");
        command.Arguments.Add(experiment);
        foreach (var option in new Option[] { store, metric, scenario, since, machine, minSegment, repo, html, junit, json })
        {
            command.Options.Add(option);
        }
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            var query = new HistoryQuery(pr.GetValue(experiment), MetricKeys(pr.GetValue(metric)), pr.GetValue(scenario),
                Since(pr.GetValue(since)));
            var min = pr.GetValue(minSegment);
            if (min < 2)
            {
                throw new PerfLabException($"--min-segment {min}: give 2 or more (a segment's spread needs two runs).", ExitCode.Usage);
            }
            CheckFolder(pr.GetValue(html), "--html");
            CheckFolder(pr.GetValue(junit), "--junit");
            await using var history = await HistoryStore.OpenAsync(HistoryLocation.Parse(pr.GetValue(store)), create: false, ct);
            var (points, order) = await HistoryOrder.ArrangeAsync(await history.QueryAsync(query, ct),
                Path.GetFullPath(pr.GetValue(repo) ?? "."), ct);
            var series = HistorySeries.Analyze(points, pr.GetValue(machine), new EDivisive.Options(MinSegment: min));
            Write(history.Location.Shown, order, series, pr.GetValue(json), pr.GetValue(html), pr.GetValue(junit));
            return (int)(series.Any(HistoryText.NewRegression) ? ExitCode.ThresholdsFailed : ExitCode.Success);
        });
        return command;
    }

    private static Option<string[]> MetricOption() => new("--metric")
    {
        Description = "Only these metrics (repeatable): cost (CPU per request), rps, p99, mean, batch, capacity, or a key of "
            + "results.json (cpu-per-request-full-speed, p90-ms, ...). Default: all.",
        HelpName = "metric",
    };

    private static Option<string?> RepoOption() => new("--repo")
    {
        Description = "The git repository whose commit order orders the runs (default: the current directory's); when a run's "
            + "commit is not in it, runs are ordered by start time, and the output says so.",
        HelpName = "folder",
    };

    private static Option<string?> MachineOption() => new("--machine")
    {
        Description = "Series are per machine (CPU, cores, system) by default; 'any' mixes machines in one series, another word "
            + "keeps only machines whose name contains it.",
        HelpName = "any|name",
    };

    private static void Write(string shown, RunOrder order, IReadOnlyList<SeriesAnalysis> series, bool json, string? html,
        string? junit)
    {
        if (json)
        {
            Console.WriteLine(HistoryText.Json(shown, order, series));
        }
        else if (series.Count == 0)
        {
            Console.WriteLine($"history: {shown}: no runs match.");
        }
        else
        {
            Console.WriteLine($"history: {shown}; each series oldest first, {order.Said}.\n");
            HistoryText.Write(series, Console.Out);
        }
        if (html is not null)
        {
            using var writer = new StreamWriter(html);
            HistoryPage.Write(shown, order, series, writer);
        }
        if (junit is not null)
        {
            using var writer = new StreamWriter(junit);
            HistoryText.Junit(series, writer);
        }
    }

    /// <summary>The words --metric takes, as catalog keys: decide:'s words (cost, rps, latency), threshold names, keys.</summary>
    private static IReadOnlyList<string>? MetricKeys(string[]? words)
    {
        if (words is not { Length: > 0 })
        {
            return null;
        }
        return [.. words.Select(word => (word switch
        {
            "batch" => Metrics.BatchMeanMs,
            _ => Metrics.Deciding(word) ?? Metrics.Find(word) ?? Metrics.ForThreshold(word),
        } is { } m && Metrics.Comparable.Contains(m) ? m.Key : null) ?? throw new PerfLabException(
            $"--metric '{word}' is not a figure the history keeps; give one of cost, rps, p99, mean, batch, capacity, or "
                + string.Join(", ", Metrics.Comparable.Select(c => c.Key)) + ".", ExitCode.Usage))];
    }

    private static DateTimeOffset? Since(string? text)
    {
        if (text is null)
        {
            return null;
        }
        var span = text.Trim().ToLowerInvariant();
        (string Unit, double Days)[] units = [("d", 1), ("w", 7), ("h", 1 / 24.0)];
        foreach (var (unit, days) in units)
        {
            if (span.EndsWith(unit, StringComparison.Ordinal)
                && double.TryParse(span[..^1], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var n))
            {
                return DateTimeOffset.UtcNow - TimeSpan.FromDays(n * days);
            }
        }
        if (DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var date))
        {
            return date;
        }
        throw new PerfLabException($"--since '{text}': give a span back from now (30d, 2w, 12h) or a date (2026-11-01).", ExitCode.Usage);
    }

    private static void CheckFolder(string? path, string option)
    {
        if (path is not null && !Directory.Exists(Path.GetDirectoryName(Path.GetFullPath(path))))
        {
            throw new PerfLabException($"{option}: cannot write '{path}': its folder does not exist.", ExitCode.Usage);
        }
    }
}
