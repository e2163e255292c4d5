namespace PerfLab.Load;

/// <summary>
/// A window probe that reads the run's responses while it runs, and may end it: short alternation
/// (Experiments.Running.Blocks.ShortWindows) cuts one held load run into windows a fraction of a second long, each
/// counted by the responses between its edges, and ends the run once its last window is measured.
/// </summary>
public interface IResponseTap : IWindowProbe
{
    /// <summary>
    /// A scenario's measured window has opened: <paramref name="responses"/> reads its responses so far (cumulative, the
    /// warm-up's included), <paramref name="stop"/> ends it. Called once per scenario, on the engine's flow.
    /// </summary>
    void Attach(Func<long> responses, Action stop);
}
