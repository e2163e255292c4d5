namespace PerfLab.Load;

/// <summary>
/// Something read at the edges of the measured window, so that it covers exactly the time whose requests are counted
/// (the app's CPU from the kernel, say). Called on the engine's own flow, so it must be quick: a few system calls.
/// </summary>
public interface IWindowProbe
{
    /// <summary>The measured window begins (called again when a warm-up ends: the latest call counts).</summary>
    void WindowStarted();

    /// <summary>The measured window has ended: every scenario stopped.</summary>
    void WindowEnded();
}
