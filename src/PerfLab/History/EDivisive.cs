namespace PerfLab.History;

/// <summary>
/// E-Divisive means (Matteson and James, 2014; the method of MongoDB's CI and Apache Otava), written for perflab:
/// the split of a segment that maximizes the energy statistic between its two sides,
/// Q(τ) = τ(m-τ)/m · (2·mean|x-y| across − mean|x-x'| left − mean|y-y'| right), is a change point when a permutation
/// test finds so large a maximum in fewer than <see cref="Options.Alpha"/> of shuffles of that segment. Segments are
/// split one change point at a time, the strongest first, until none is significant. Each side keeps at least
/// <see cref="Options.MinSegment"/> points. The shuffles come from a fixed seed, so one series always gives one answer.
/// </summary>
public static class EDivisive
{
    /// <param name="MinSegment">The fewest points a segment may keep (at least 2: a side's mean distance needs a pair).</param>
    /// <param name="Alpha">The significance level of the permutation test.</param>
    /// <param name="Permutations">Shuffles per test: 199 resolve p down to 0.005.</param>
    public sealed record Options(int MinSegment = 3, double Alpha = 0.05, int Permutations = 199, int Seed = 20261128);

    /// <summary>A change point: the index of the first point after the change, and its permutation p-value.</summary>
    public sealed record Split(int Index, double PValue);

    /// <summary>
    /// The change points of <paramref name="values"/>, in order. <paramref name="accept"/> may veto a significant split
    /// (start, split, end): a vetoed split ends the search in that segment.
    /// </summary>
    public static IReadOnlyList<Split> Find(IReadOnlyList<double> values, Options options, Func<int, int, int, bool>? accept = null)
    {
        var minSegment = Math.Max(2, options.MinSegment);
        var random = new Random(options.Seed);
        var found = new List<Split>();
        var open = new List<(int Start, int End)> { (0, values.Count) };
        while (true)
        {
            var best = open
                .Select(s => (Segment: s, Best: Best(Slice(values, s.Start, s.End), minSegment)))
                .Where(c => c.Best.Index > 0)
                .OrderByDescending(c => c.Best.Q)
                .FirstOrDefault();
            if (best.Best.Index == 0)
            {
                break;
            }
            var (start, end) = best.Segment;
            open.Remove(best.Segment);
            var p = PValue(Slice(values, start, end), best.Best.Q, minSegment, options.Permutations, random);
            var split = start + best.Best.Index;
            if (p > options.Alpha || (accept is not null && !accept(start, split, end)))
            {
                continue;
            }
            found.Add(new Split(split, p));
            open.Add((start, split));
            open.Add((split, end));
        }
        return [.. found.OrderBy(s => s.Index)];
    }

    /// <summary>The energy statistic's best split of <paramref name="x"/> and its value; index 0 when it is too short to split.</summary>
    public static (int Index, double Q) Best(IReadOnlyList<double> x, int minSegment)
    {
        var m = x.Count;
        if (m < 2 * minSegment)
        {
            return (0, 0);
        }
        // within[τ]: the sum of |xi - xj| over pairs inside x[0..τ); behind[τ]: inside x[τ..m). Pairs across are the rest.
        var within = new double[m + 1];
        var behind = new double[m + 1];
        for (var t = 1; t <= m; t++)
        {
            var add = 0.0;
            for (var i = 0; i < t - 1; i++)
            {
                add += Math.Abs(x[i] - x[t - 1]);
            }
            within[t] = within[t - 1] + add;
        }
        for (var t = m - 1; t >= 0; t--)
        {
            var add = 0.0;
            for (var j = t + 1; j < m; j++)
            {
                add += Math.Abs(x[t] - x[j]);
            }
            behind[t] = behind[t + 1] + add;
        }
        var total = within[m];
        var (bestIndex, bestQ) = (0, double.NegativeInfinity);
        for (var t = minSegment; t <= m - minSegment; t++)
        {
            double left = t, right = m - t;
            var across = total - within[t] - behind[t];
            var energy = 2 * across / (left * right) - within[t] / (left * (left - 1) / 2) - behind[t] / (right * (right - 1) / 2);
            var q = left * right / m * energy;
            if (q > bestQ)
            {
                (bestIndex, bestQ) = (t, q);
            }
        }
        return (bestIndex, bestQ);
    }

    /// <summary>
    /// The permutation p-value of one given split: x[0..split) against the rest, the labels shuffled. What a noise check
    /// asks of a split already found.
    /// </summary>
    public static double PValueAt(double[] x, int split, Options options)
    {
        var random = new Random(options.Seed);
        var observed = Energy(x, split);
        var shuffled = (double[])x.Clone();
        var asLarge = 0;
        for (var i = 0; i < options.Permutations; i++)
        {
            random.Shuffle(shuffled);
            if (Energy(shuffled, split) >= observed)
            {
                asLarge++;
            }
        }
        return (asLarge + 1.0) / (options.Permutations + 1);
    }

    /// <summary>Q at one split, directly.</summary>
    private static double Energy(double[] x, int split)
    {
        double across = 0, left = 0, right = 0;
        for (var i = 0; i < x.Length; i++)
        {
            for (var j = i + 1; j < x.Length; j++)
            {
                var d = Math.Abs(x[i] - x[j]);
                if (i < split && j >= split)
                {
                    across += d;
                }
                else if (j < split)
                {
                    left += d;
                }
                else
                {
                    right += d;
                }
            }
        }
        double n = split, m = x.Length - split;
        return n * m / x.Length * (2 * across / (n * m) - left / (n * (n - 1) / 2) - right / (m * (m - 1) / 2));
    }

    private static double PValue(double[] segment, double observed, int minSegment, int permutations, Random random)
    {
        var shuffled = (double[])segment.Clone();
        var asLarge = 0;
        for (var i = 0; i < permutations; i++)
        {
            random.Shuffle(shuffled);
            if (Best(shuffled, minSegment).Q >= observed)
            {
                asLarge++;
            }
        }
        return (asLarge + 1.0) / (permutations + 1);
    }

    private static double[] Slice(IReadOnlyList<double> values, int start, int end) => [.. values.Skip(start).Take(end - start)];
}
