using PerfLab.Load.Sockets;

namespace PerfLab.Tests.Load;

/// <summary>
/// The receive's awaitable: the completing thread runs the awaiting method's continuation itself, whichever of the
/// hand-over and the completion comes first, and a count or an error reaches the await as it was set.
/// </summary>
public sealed class SocketReceiveTests
{
    [Fact]
    public async Task Await_CompletedOnAnotherThreadAfterTheAwait_ResumesOnThatThreadWithTheCount()
    {
        var completion = new ReceiveCompletion();
        completion.Reset();
        var completer = new Thread(() =>
        {
            Thread.Sleep(100); // the await below has handed its continuation over by then
            completion.SetResult(42);
        }) { Name = "completer" };

        var awaiting = AwaitAsync(new SocketReceive(completion));
        Assert.False(awaiting.IsCompleted);
        completer.Start();
        var (count, thread) = await awaiting.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(42, count);
        Assert.Equal("completer", thread);
    }

    [Fact]
    public async Task Await_CompletedBeforeTheAwait_TakesTheCountWithoutWaiting()
    {
        var completion = new ReceiveCompletion();
        completion.Reset();
        completion.SetResult(7);

        var awaiting = AwaitAsync(new SocketReceive(completion));

        Assert.True(awaiting.IsCompleted);
        Assert.Equal(7, (await awaiting).Count);
    }

    [Fact]
    public async Task OnCompleted_AfterTheCompletion_RunsTheContinuationOnTheThreadPoolNotInsideTheCaller()
    {
        var completion = new ReceiveCompletion();
        completion.Reset();
        completion.SetResult(3);
        var ran = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var inside = true;

        new SocketReceive(completion).GetAwaiter().UnsafeOnCompleted(() => ran.SetResult(inside));
        inside = false;

        Assert.False(await ran.Task.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task Await_CompletedWithAnError_ThrowsItThenTheNextReceiveGetsItsCount()
    {
        var completion = new ReceiveCompletion();
        completion.Reset();
        completion.SetException(new IOException("reset by peer"));

        var ex = await Assert.ThrowsAsync<IOException>(() => AwaitAsync(new SocketReceive(completion)));
        Assert.Equal("reset by peer", ex.Message);

        completion.Reset();
        completion.SetResult(5);
        Assert.Equal(5, (await AwaitAsync(new SocketReceive(completion))).Count);
    }

    [Fact]
    public async Task Await_ACountOrAnotherSocketsTask_GivesTheirCount()
    {
        Assert.Equal(9, (await AwaitAsync(new SocketReceive(9))).Count);
        Assert.Equal(11, (await AwaitAsync(new SocketReceive(new ValueTask<int>(Task.Run(() => 11))))).Count);
    }

    private static async Task<(int Count, string? Thread)> AwaitAsync(SocketReceive receive)
    {
        var count = await receive;
        return (count, Thread.CurrentThread.Name);
    }
}
