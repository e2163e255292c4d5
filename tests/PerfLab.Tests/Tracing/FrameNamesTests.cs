using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

public sealed class FrameNamesTests
{
    [Theory]
    [InlineData("PerfLab.Sut.Diagnostics.CulpritsApi+<>c.<MapCulprits>b__0_0(int32)", "PerfLab.Sut.Diagnostics.CulpritsApi.MapCulprits lambda b__0_0")]
    [InlineData("PerfLab.Sut.Orders.OrdersController+<GetAsync>d__3.MoveNext()", "PerfLab.Sut.Orders.OrdersController.GetAsync (async)")]
    [InlineData("Ns.Type+<>c__DisplayClass2_0.<Run>b__1", "Ns.Type.Run lambda b__1")]
    [InlineData("PerfLab.Sut.Delays.DelaysApi+<>c+<<MapDelays>b__1_1>d.MoveNext()", "PerfLab.Sut.Delays.DelaysApi.MapDelays lambda b__1_1 (async)")]
    [InlineData("Microsoft.Extensions.Logging.LoggerMessage+<>c__DisplayClass12_0`2[System.Int32,System.Int32].<Define>g__Log|0(class Microsoft.Extensions.Logging.ILogger)",
        "Microsoft.Extensions.Logging.LoggerMessage.Define local Log")]
    [InlineData("Program.<<Main>$>b__0_0()", "Program.<Main>$ lambda b__0_0")]
    [InlineData("System.Threading.Tasks.Task.Wait()", "System.Threading.Tasks.Task.Wait")]
    [InlineData("dynamicClass.lambda_method14(pMT: class System.Runtime.CompilerServices.Closure,class System.Object)",
        "CompiledDelegate.lambda_method14 (endpoint delegate, handler inlined)")]
    [InlineData("dynamicClass.ResolveService(pMT: class)", "dynamicClass.ResolveService")]
    [InlineData("Npgsql.Internal.NpgsqlReadBuffer+<<Ensure>g__EnsureLong|42_0>d.MoveNext()", "Npgsql.Internal.NpgsqlReadBuffer.Ensure local EnsureLong (async)")]
    public void Readable_CompilerGeneratedNames_KeepTypeAndMethod(string method, string expected)
    {
        Assert.Equal(expected, FrameNames.Readable(method));
    }

    [Theory]
    [InlineData("PerfLab.Sut!PerfLab.Sut.Diagnostics.CulpritsApi.MapCulprits lambda b__0_0", "CulpritsApi.MapCulprits lambda b__0_0")]
    [InlineData("PerfLab.Sut!PerfLab.Sut.Logging.LockedConsoleLoggerProvider.Write", "LockedConsoleLoggerProvider.Write")]
    [InlineData("System.Private.CoreLib!System.Collections.Generic.Dictionary`2[System.__Canon,System.Int32].TryGetValue", "Dictionary`2[System.__Canon,System.Int32].TryGetValue")]
    [InlineData("Main", "Main")]
    [InlineData("?!CompiledDelegate.lambda_method14 (endpoint delegate, handler inlined)", "CompiledDelegate.lambda_method14 (endpoint delegate, handler inlined)")]
    public void Place_Frame_IsTypeAndMethodWithoutNamespace(string frame, string expected)
    {
        Assert.Equal(expected, FrameNames.Place(frame));
    }

    [Fact]
    public void CallSite_LockStack_IsFirstFrameOutsideThreadingAndEventSource()
    {
        string[] stack =
        [
            "System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch",
            "PerfLab.Sut!PerfLab.Sut.Diagnostics.CulpritsApi.MapCulprits lambda b__0_0",
            "PerfLab.Sut!PerfLab.Sut.Diagnostics.CulpritsApi.HoldLock",
            "System.Private.CoreLib!System.Threading.Lock.EnterScope",
            "System.Private.CoreLib!System.Threading.Lock.TryEnterSlow",
            "System.Private.CoreLib!System.Diagnostics.Tracing.NativeRuntimeEventSource.ContentionStart",
        ];

        Assert.Equal(2, FrameNames.CallSite(stack, stack.Length - 1));
        Assert.Equal(-1, FrameNames.CallSite(["System.Private.CoreLib!System.Threading.Monitor.Enter"], 0));
    }

    [Fact]
    public void OutermostBlockingWait_GenericResult_FoundAndNamedWithoutArguments()
    {
        string[] stack =
        [
            "PerfLab.Sut!PerfLab.Sut.Data.Orders.Count",
            "System.Private.CoreLib!System.Threading.Tasks.Task`1[System.Int32].get_Result",
            "System.Private.CoreLib!System.Threading.Tasks.Task.InternalWait",
            "System.Private.CoreLib!System.Threading.Tasks.Task.SpinThenBlockingWait",
        ];

        Assert.Equal(1, FrameNames.OutermostBlockingWait(stack));
        Assert.Equal("System.Threading.Tasks.Task`1.get_Result", FrameNames.BlockingWait(stack[1]));
        Assert.True(FrameNames.IsDeepWait(stack[3]));
        Assert.Null(FrameNames.BlockingWait("System.Private.CoreLib!System.Threading.Tasks.Task.Delay"));
    }

    // Seen in CI: Task.Delay's timer lock contended under load blocks in the lock's slow path on a WaitHandle. That is
    // the lock's contention (its events count it), not a blocking call of the app's.
    [Fact]
    public void OutermostBlockingWait_WaitInsideALocksSlowPath_NotABlockingCall()
    {
        string[] stack =
        [
            "System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch",
            "PerfLab.Sut!PerfLab.Sut.Delays.DelaysApi+<>c+<<MapDelays>b__1_1>d.MoveNext()",
            "System.Private.CoreLib!System.Threading.Tasks.Task.Delay",
            "System.Private.CoreLib!System.Threading.Tasks.Task+DelayPromise..ctor",
            "System.Private.CoreLib!System.Threading.Lock.EnterAndGetCurrentThreadId",
            "System.Private.CoreLib!System.Threading.Lock.TryEnterSlow",
            "System.Private.CoreLib!System.Threading.WaitHandle.WaitOneNoCheck",
        ];
        string[] waitUnderTaskWait =
        [
            "PerfLab.Sut!PerfLab.Sut.Data.Orders.Count",
            "System.Private.CoreLib!System.Threading.Tasks.Task.Wait",
            "System.Private.CoreLib!System.Threading.ManualResetEventSlim.Wait",
            "System.Private.CoreLib!System.Threading.Monitor.Enter_Slowpath",
        ];

        Assert.Equal(-1, FrameNames.OutermostBlockingWait(stack));
        Assert.Equal(1, FrameNames.OutermostBlockingWait(waitUnderTaskWait));
    }

    [Theory]
    [InlineData("System.Net.Sockets!System.Net.Sockets.SocketAsyncContext.ReceiveFrom", "synchronous socket I/O")]
    [InlineData("System.Net.Sockets!System.Net.Sockets.SocketAsyncContext.SendTo", "synchronous socket I/O")]
    [InlineData("System.Private.CoreLib!System.Threading.Thread.Sleep", "Thread.Sleep")]
    public void BlockingCallsOf_SyncFrames_NamedByTheirKind(string frame, string call)
    {
        Assert.Equal(call, BlockingCalls.Of(frame)?.Name);
    }

    [Theory]
    [InlineData("System.Net.Sockets!System.Net.Sockets.SocketAsyncContext.ReceiveFromAsync")]
    [InlineData("System.Net.Sockets!System.Net.Sockets.SocketAsyncContext.HandleEvents")]
    public void BlockingCallsOf_AsyncOrEngineFrames_NotBlocking(string frame)
    {
        Assert.Null(BlockingCalls.Of(frame));
    }
}
