namespace PerfLab.Micro;

/// <summary>Sets our BenchmarkDotNet results beside the seed tables.</summary>
public static class MicroComparer
{
    // Two means within 5 % of each other are "level": the seed's own tables differ by that much between runs.
    public const double LevelBand = 0.05;

    public static RatioDirection DirectionOf(double ratio) =>
        ratio < 1 - LevelBand ? RatioDirection.Faster
        : ratio > 1 + LevelBand ? RatioDirection.Slower
        : RatioDirection.Level;

    public static MicroComparison Compare(MicroResults results, IReadOnlyList<SeedTable> seedTables)
    {
        var matched = new HashSet<BenchmarkMeasurement>();
        var tables = new List<TableComparison>();
        foreach (var table in seedTables)
        {
            var ours = table.Rows
                .Select(r => results.Benchmarks.FirstOrDefault(b =>
                    b.Type == table.Type && b.Method == r.Method && b.Parameters == table.Parameters))
                .ToList();
            if (ours.All(o => o is null))
            {
                continue; // not run (filtered out or interrupted before it): nothing to say about this table
            }
            foreach (var o in ours.OfType<BenchmarkMeasurement>())
            {
                matched.Add(o);
            }

            var baselineMean = ours[0]?.MeanNs;
            var rows = table.Rows.Select((row, i) => new ClaimComparison(
                row,
                table.SeedRatio(row),
                ours[i],
                ours[i]?.MeanNs is { } mean && baselineMean is > 0 ? mean / baselineMean.Value : null)
            {
                IsBaseline = i == 0,
            }).ToList();
            tables.Add(new TableComparison(table, rows, CheckOrdering(rows)));
        }
        var notInSeed = results.Benchmarks.Where(b => !matched.Contains(b)).ToList();
        return new MicroComparison(results.Host, tables, notInSeed);
    }

    private static OrderingCheck CheckOrdering(IReadOnlyList<ClaimComparison> rows)
    {
        int checkedPairs = 0, kept = 0;
        var reversed = new List<string>();
        for (var i = 0; i < rows.Count; i++)
        {
            for (var j = i + 1; j < rows.Count; j++)
            {
                var (a, b) = rows[i].Seed.MeanNs <= rows[j].Seed.MeanNs ? (rows[i], rows[j]) : (rows[j], rows[i]);
                if (b.Seed.MeanNs <= a.Seed.MeanNs * (1 + LevelBand))
                {
                    continue; // the seed does not tell these two apart
                }
                if (a.Ours?.MeanNs is not { } fast || b.Ours?.MeanNs is not { } slow)
                {
                    continue;
                }
                checkedPairs++;
                if (fast < slow)
                {
                    kept++;
                }
                else
                {
                    reversed.Add($"{a.Seed.Method} < {b.Seed.Method}");
                }
            }
        }
        return new OrderingCheck(checkedPairs, kept, reversed);
    }
}
