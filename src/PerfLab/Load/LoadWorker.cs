namespace PerfLab.Load;

/// <summary>
/// One user's reusable pieces: its HTTP/1.1 connection, or else a body buffer and a timeout source for HttpClient;
/// a random stream. Nothing per request.
/// </summary>
internal sealed class LoadWorker
{
    public readonly int Index;
    public readonly Random Random;
    public readonly Http11Connection? Connection;
    public readonly byte[] Buffer = [];
    /// <summary>
    /// Where this user's requests are written when their body
    /// varies (<see cref="RequestTemplate"/>); grown once, reused.
    /// </summary>
    public byte[] Scratch = [];
    public CancellationTokenSource? Timeout;

    public LoadWorker(int index, ScenarioRun run)
    {
        Index = index;
        Random = new Random(HashCode.Combine(run.Plan.Feed.Seed, index));
        Connection = run.OpenConnection();
        if (Connection is null)
        {
            Buffer = new byte[16 * 1024];
            Timeout = CancellationTokenSource.CreateLinkedTokenSource(run.Stop);
        }
    }
}
