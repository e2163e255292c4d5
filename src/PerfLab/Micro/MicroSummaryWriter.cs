using System.Globalization;

namespace PerfLab.Micro;

/// <summary>Renders a <see cref="MicroComparison"/> as the short Markdown summary of <c>perflab micro</c>.</summary>
public static class MicroSummaryWriter
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public static string Render(MicroComparison comparison, string command)
    {
        using var writer = new StringWriter(Inv) { NewLine = "\n" };
        Write(comparison, command, writer);
        return writer.ToString();
    }

    public static void Write(MicroComparison comparison, string command, TextWriter w)
    {
        w.WriteLine("# Seed 002 microbenchmarks on this machine");
        w.WriteLine();
        w.WriteLine($"Command: `{command}`");
        if (comparison.Host is { } host)
        {
            w.WriteLine();
            w.WriteLine(string.Create(Inv, $"Host: BenchmarkDotNet {host.BenchmarkDotNetVersion}, {host.Runtime}, {host.Processor} ({host.LogicalCores} logical cores), {host.Os}"));
            w.WriteLine();
            w.WriteLine($"Job: {host.Job}");
        }
        w.WriteLine();
        w.WriteLine("Ratios are mean / mean of the table's baseline (its first row), in the seed and here. The seed ran");
        w.WriteLine(".NET 7 on other hardware: compare ratios, not nanoseconds. A ratio within 5 % of 1 counts as level;");
        w.WriteLine("*holds* means our ratio is on the same side of the baseline as the seed's (faster, level or slower).");
        w.WriteLine();

        if (comparison.Tables.Count == 0)
        {
            w.WriteLine("No result matched a seed table.");
        }
        else
        {
            w.WriteLine("| Seed table | Benchmark | Seed mean | Seed ratio | Our mean | Our ratio | Seed alloc | Our alloc | Holds |");
            w.WriteLine("|---|---|---:|---:|---:|---:|---:|---:|---|");
            foreach (var table in comparison.Tables)
            {
                var first = true;
                foreach (var row in table.Rows)
                {
                    var title = first ? table.Table.Title : "";
                    var name = row.IsBaseline ? $"{row.Seed.Method} (baseline)" : row.Seed.Method;
                    w.WriteLine($"| {title} | {name} | {Ns(row.Seed.MeanNs)} | {Ratio(row.SeedRatio)} | {Ns(row.Ours?.MeanNs)} | {Ratio(row.OurRatio)} | {Bytes(row.Seed.AllocatedBytes)} | {Bytes(row.Ours?.AllocatedBytes)} | {Holds(row)} |");
                    first = false;
                }
            }

            w.WriteLine();
            w.WriteLine("Ordering: every pair of rows whose seed means are more than 5 % apart, in the same order here?");
            w.WriteLine();
            foreach (var table in comparison.Tables)
            {
                var o = table.Ordering;
                var verdict = o.PairsChecked == 0 ? "nothing to check"
                    : o.Holds ? string.Create(Inv, $"holds ({o.PairsKept} of {o.PairsChecked} pairs)")
                    : string.Create(Inv, $"differs ({o.PairsKept} of {o.PairsChecked} pairs kept; reversed or tied here: {string.Join(", ", o.Reversed)})");
                w.WriteLine($"- {table.Table.Title}: {verdict}");
            }

            var claims = comparison.Tables.SelectMany(t => t.Rows).Where(r => !r.IsBaseline && r.DirectionHolds is not null).ToList();
            var tablesChecked = comparison.Tables.Count(t => t.Ordering.PairsChecked > 0);
            w.WriteLine();
            w.WriteLine(string.Create(Inv, $"Totals: {claims.Count(c => c.DirectionHolds == true)} of {claims.Count} ratios on the seed's side of the baseline; {comparison.Tables.Count(t => t.Ordering.Holds)} of {tablesChecked} tables keep the seed's ordering."));
        }

        if (comparison.NotInSeed.Count > 0)
        {
            w.WriteLine();
            w.WriteLine("Measured but not in a seed table:");
            w.WriteLine();
            foreach (var b in comparison.NotInSeed)
            {
                var parameters = b.Parameters.Length > 0 ? $" [{b.Parameters}]" : "";
                w.WriteLine($"- {b.Type}.{b.Method}{parameters}: {Ns(b.MeanNs)}, {Bytes(b.AllocatedBytes)}");
            }
        }
    }

    private static string Holds(ClaimComparison row)
    {
        if (row.IsBaseline)
        {
            return "";
        }
        if (row.OurRatio is not { } ours)
        {
            return "not measured";
        }
        return row.DirectionHolds == true
            ? "yes"
            : $"no: {Word(MicroComparer.DirectionOf(row.SeedRatio))} in the seed, {Word(MicroComparer.DirectionOf(ours))} here";
    }

    private static string Word(RatioDirection d) => d switch
    {
        RatioDirection.Faster => "faster",
        RatioDirection.Slower => "slower",
        _ => "level",
    };

    internal static string Ns(double? ns) => ns switch
    {
        null => "-",
        < 10 => ns.Value.ToString("0.000", Inv) + " ns",
        < 100 => ns.Value.ToString("0.00", Inv) + " ns",
        _ => ns.Value.ToString("0.0", Inv) + " ns",
    };

    private static string Ratio(double? ratio) => ratio is { } r ? r.ToString("0.00", Inv) : "-";

    private static string Bytes(long? bytes) => bytes is { } b ? b.ToString(Inv) + " B" : "n/a";
}
