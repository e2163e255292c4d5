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
        WriteHeader(comparison, command, w);
        if (comparison.Tables.Count == 0)
        {
            w.WriteLine("No result matched a seed table.");
        }
        else
        {
            WriteRatios(comparison, w);
            WriteOrderings(comparison, w);
        }
        WriteNotInSeed(comparison, w);
    }

    private static void WriteHeader(MicroComparison comparison, string command, TextWriter w)
    {
        w.WriteLine("# Seed 002 microbenchmarks on this machine");
        w.WriteLine();
        w.WriteLine($"Command: `{command}`");
        if (comparison.Host is { } host)
        {
            w.WriteLine();
            w.WriteLine(string.Create(Inv, $"Host: BenchmarkDotNet {host.BenchmarkDotNetVersion}, {host.Runtime}, {host.Processor} "
                + $"({host.LogicalCores} logical cores), {host.Os}"));
            w.WriteLine();
            w.WriteLine($"Job: {host.Job}");
        }
        w.WriteLine();
        w.WriteLine("Ratios are mean / mean of the table's baseline (its first row), in the seed and here. The seed ran");
        w.WriteLine(".NET 7 on other hardware: compare ratios, not nanoseconds. A ratio within 5 % of 1 counts as level;");
        w.WriteLine("*yes* means our ratio is on the same side of the baseline as the seed's (faster, level or slower),");
        w.WriteLine("*within noise* that our ratio's error (from BenchmarkDotNet's 99.9 % margins) spans more than one side.");
        w.WriteLine();
    }

    private static void WriteRatios(MicroComparison comparison, TextWriter w)
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
                var ourRatio = row.IsBaseline || row.OurRatio is null
                    ? Ratio(row.OurRatio)
                    : $"{Ratio(row.OurRatio)} ± {Ratio(row.OurRatio * row.OurRatioError)}";
                w.WriteLine($"| {title} | {name} | {Ns(row.Seed.MeanNs)} | {Ratio(row.SeedRatio)} | {Ns(row.Ours?.MeanNs)} | {ourRatio} "
                    + $"| {Bytes(row.Seed.AllocatedBytes)} | {Bytes(row.Ours?.AllocatedBytes)} | {Holds(row)} |");
                first = false;
            }
        }
    }

    private static void WriteOrderings(MicroComparison comparison, TextWriter w)
    {
        w.WriteLine();
        w.WriteLine("Ordering: is every pair of rows whose seed means are more than 5 % apart in the same order here, beyond");
        w.WriteLine("our error margins?");
        w.WriteLine();
        foreach (var table in comparison.Tables)
        {
            var o = table.Ordering;
            var verdict = o.PairsChecked == 0 ? "nothing to check"
                : o.Holds ? string.Create(Inv, $"holds ({o.PairsKept} of {o.PairsChecked} pairs)")
                : string.Create(Inv, $"differs ({o.PairsKept} of {o.PairsChecked} pairs kept, {o.WithinNoise} within "
                    + $"noise, {o.Reversed.Count} reversed{(o.Reversed.Count > 0 ? ": " + string.Join(", ", o.Reversed) : "")})");
            w.WriteLine($"- {table.Table.Title}: {verdict}");
        }

        var claims = comparison.Tables.SelectMany(t => t.Rows)
            .Where(r => r.Verdict is ClaimVerdict.Holds or ClaimVerdict.Differs or ClaimVerdict.WithinNoise).ToList();
        var tablesChecked = comparison.Tables.Count(t => t.Ordering.PairsChecked > 0);
        w.WriteLine();
        w.WriteLine(string.Create(Inv, $"Totals: of {claims.Count} measured ratios, {claims.Count(c => c.Verdict == ClaimVerdict.Holds)} "
            + $"on the seed's side of the baseline, {claims.Count(c => c.Verdict == ClaimVerdict.Differs)} on another "
            + $"side, {claims.Count(c => c.Verdict == ClaimVerdict.WithinNoise)} within "
            + $"noise; {comparison.Tables.Count(t => t.Ordering.Holds)} of {tablesChecked} tables keep the seed's ordering."));
    }

    private static void WriteNotInSeed(MicroComparison comparison, TextWriter w)
    {
        if (comparison.NotInSeed.Count == 0)
        {
            return;
        }
        w.WriteLine();
        w.WriteLine("Measured but not in a seed table:");
        w.WriteLine();
        foreach (var b in comparison.NotInSeed)
        {
            var parameters = b.Parameters.Length > 0 ? $" [{b.Parameters}]" : "";
            w.WriteLine($"- {b.Type}.{b.Method}{parameters}: {Ns(b.MeanNs)}, {Bytes(b.AllocatedBytes)}");
        }
    }

    private static string Holds(ClaimComparison row) => row.Verdict switch
    {
        ClaimVerdict.Baseline => "",
        ClaimVerdict.Holds => "yes",
        ClaimVerdict.WithinNoise => "within noise",
        ClaimVerdict.NotMeasured => "not measured",
        ClaimVerdict.NoBaseline => "no ratio: the baseline did not run",
        _ => $"no: {Word(MicroComparer.DirectionOf(row.SeedRatio))} in the seed, "
            + $"{Word(MicroComparer.DirectionOf(row.OurRatio!.Value))} here",
    };

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
