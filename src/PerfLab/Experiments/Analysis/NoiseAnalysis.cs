using PerfLab.Common;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Takes the spread of an experiment's runs apart: noise inside a run (second to second), between runs of one
/// variant (fresh SUT processes), and drift along the invocation (a trend with run order that hits every variant).
/// Each calls for a different fix: a longer window, a steadier process, or pairing within blocks.
/// </summary>
public static class NoiseAnalysis
{
    public static NoiseBreakdown? Of(IReadOnlyList<RunRecord> runs)
    {
        var ok = runs.Where(r => r.Status == RunStatus.Ok && r.Scenarios.Sum(s => s.Rps) > 0).ToList();
        if (ok.Count < 2)
        {
            return null;
        }
        var withinCv = new List<double>();
        var seconds = new List<double>();
        foreach (var run in ok)
        {
            // The first and last points can be partial seconds of the window; they would add noise the run did not have.
            var perSecond = run.Timeline.Skip(1).SkipLast(1).Select(p => p.Rps).Where(r => r > 0).ToList();
            if (perSecond.Count >= 3)
            {
                withinCv.Add(Descriptive.StdDev(perSecond) / perSecond.Average() * 100);
                seconds.Add(perSecond.Count);
            }
        }
        var within = Descriptive.Median(withinCv); // NaN when no run had three full seconds
        var expected = withinCv.Count > 0 ? within / Math.Sqrt(Descriptive.Median(seconds)) : double.NaN;
        var (drift, driftShare, residualSd) = Drift(ok);
        return new NoiseBreakdown
        {
            WithinRunCvPercent = within,
            ExpectedRunToRunCvPercent = expected,
            RunToRunCvPercent = double.IsFinite(residualSd) ? (Math.Exp(residualSd) - 1) * 100 : double.NaN,
            DriftPercentPerRun = double.IsFinite(drift) ? (Math.Exp(drift) - 1) * 100 : double.NaN,
            DriftShare = driftShare,
            Runs = ok.Count,
        };
    }

    /// <summary>
    /// A regression of log RPS on run order with one intercept per variant (so the variants' own differences are not
    /// taken for drift): the common slope, the share of the within-variant sum of squares it explains, and the
    /// standard deviation of what is left (run-to-run noise with the drift removed).
    /// </summary>
    public static (double Slope, double Share, double ResidualSd) Drift(IReadOnlyList<RunRecord> runs)
    {
        double sxy = 0, sxx = 0, syy = 0;
        var n = 0;
        var groups = 0;
        foreach (var variant in runs.GroupBy(r => r.Variant))
        {
            var points = variant.Select(r => (X: (double)r.Order, Y: Math.Log(r.Scenarios.Sum(s => s.Rps)))).ToList();
            if (points.Count < 2)
            {
                continue;
            }
            var mx = points.Average(p => p.X);
            var my = points.Average(p => p.Y);
            sxy += points.Sum(p => (p.X - mx) * (p.Y - my));
            sxx += points.Sum(p => (p.X - mx) * (p.X - mx));
            syy += points.Sum(p => (p.Y - my) * (p.Y - my));
            n += points.Count;
            groups++;
        }
        if (groups == 0 || sxx <= 0)
        {
            return (double.NaN, double.NaN, double.NaN);
        }
        var slope = sxy / sxx;
        var explained = slope * sxy;
        var residualDf = n - groups - 1;
        var residualSd = residualDf > 0 ? Math.Sqrt(Math.Max(0, syy - explained) / residualDf) : double.NaN;
        return (slope, syy > 0 ? explained / syy : 0, residualSd);
    }
}
