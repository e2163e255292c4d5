using System.Globalization;
using PerfLab.Common;
using Spectre.Console;

namespace PerfLab.Load;

/// <summary>
/// Shows a run while it goes: a live Spectre.Console table on a terminal, one plain line per second on stderr when
/// stdout is redirected, nothing at all for --json (stdout then holds only the JSON).
/// </summary>
internal static class LoadDisplay
{
    public static async Task<LoadResult> RunAsync(Func<IProgress<LoadProgress>?, Task<LoadResult>> run, bool quiet)
    {
        if (quiet)
        {
            // No progress at all: nothing for the sampler to hand to the thread pool once a second inside the window.
            return await run(null).ConfigureAwait(false);
        }
        if (Console.IsOutputRedirected || !AnsiConsole.Profile.Capabilities.Interactive)
        {
            return await run(new InlineProgress<LoadProgress>(p => Console.Error.WriteLine(Line(p)))).ConfigureAwait(false);
        }

        LoadProgress? latest = null;
        var progress = new InlineProgress<LoadProgress>(p => Volatile.Write(ref latest, p));
        LoadResult? result = null;
        await AnsiConsole.Live(new Text("starting...")).AutoClear(false).StartAsync(async ctx =>
        {
            var task = run(progress);
            while (!task.IsCompleted)
            {
                await Task.WhenAny(task, Task.Delay(250)).ConfigureAwait(false);
                if (Volatile.Read(ref latest) is { } p)
                {
                    ctx.UpdateTarget(Table(p));
                    ctx.Refresh();
                }
            }
            result = await task.ConfigureAwait(false);
        }).ConfigureAwait(false);
        return result!;
    }

    private static string Line(LoadProgress p)
    {
        var c = CultureInfo.InvariantCulture;
        var parts = p.Scenarios.Select(s => string.Create(c,
            $"{s.Name}: {s.CurrentRps:0} req/s p99 {LoadSummary.Ms(s.CurrentP99Ms)} errors {s.Errors} users {s.ActiveUsers}"));
        return string.Create(c, $"[{p.Elapsed.TotalSeconds,5:0}s/{p.Total?.TotalSeconds:0}s]{(p.WarmingUp ? " warm-up" : "")} ")
            + string.Join(" | ", parts);
    }

    private static Table Table(LoadProgress p)
    {
        var c = CultureInfo.InvariantCulture;
        var remaining = p.Total is { } total ? total - p.Elapsed : TimeSpan.Zero;
        var table = new Table().Border(TableBorder.Rounded)
            .Title(string.Create(c, $"perflab load  {p.Elapsed.TotalSeconds:0}s elapsed, {Math.Max(0, remaining.TotalSeconds):0}s left")
                + (p.WarmingUp ? "  (warm-up)" : ""))
            .AddColumn("scenario").AddColumn(new TableColumn("requests").RightAligned()).AddColumn(new TableColumn("req/s").RightAligned())
            .AddColumn(new TableColumn("p99").RightAligned()).AddColumn(new TableColumn("errors").RightAligned())
            .AddColumn(new TableColumn("users").RightAligned());
        foreach (var s in p.Scenarios)
        {
            table.AddRow(
                Markup.Escape(s.Name),
                s.Requests.ToString(c),
                s.CurrentRps.ToString("0", c),
                LoadSummary.Ms(s.CurrentP99Ms),
                s.Errors == 0 ? "0" : $"[red]{s.Errors.ToString(c)}[/]",
                s.ActiveUsers.ToString(c));
        }
        if (p.Total is { } t && t > TimeSpan.Zero)
        {
            var fraction = Math.Clamp(p.Elapsed / t, 0, 1);
            table.Caption(new string('#', (int)(fraction * 40)).PadRight(40, '.') + string.Create(c, $" {fraction * 100:0}%"));
        }
        return table;
    }
}
