"""A training step on tessel beside the same step on cuDNN / cuBLAS.

    python examples/train_step.py --model resnet50 --batch 32 --steps 8
    python examples/train_step.py --model mlp --tokens 4096 --dim 4096 --hidden 14336

Two copies of one model start from the same weights: one as PyTorch runs it (cuDNN convolutions,
cuBLAS linears), one with tessel.nn.replace(). Both take the same SGD steps on the same random
batches; the script prints each step's loss on both, their largest relative difference, and the
median step time (forward, backward and optimizer, CUDA events) of each. Exit status 1 when the
losses differ by more than --tolerance.

ResNet-50 is torchvision's when torchvision is installed, else the same network defined below
(bottleneck blocks [3, 4, 6, 3], the 7x7 stem). The MLP is a transformer's feed-forward block:
Linear(dim, hidden), GELU, Linear(hidden, dim).
"""

import argparse
import copy
import statistics
import sys

import torch
from torch import nn

import tessel


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.skip = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


def resnet50(classes=1000):
    try:
        import torchvision

        return torchvision.models.resnet50(num_classes=classes), "torchvision"
    except ImportError:
        pass
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                   nn.MaxPool2d(3, 2, 1)], 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers), "defined here"


def mlp(dim, hidden):
    return nn.Sequential(nn.Linear(dim, hidden), nn.GELU(approximate="tanh"), nn.Linear(hidden, dim))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=("resnet50", "mlp"), default="resnet50")
    ap.add_argument("--batch", type=int, default=32, help="images per step (resnet50)")
    ap.add_argument("--tokens", type=int, default=4096, help="tokens per step (mlp)")
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=14336)
    ap.add_argument("--steps", type=int, default=8, help="steps timed and compared (after 3 warm-up steps)")
    ap.add_argument("--dtype", choices=("float16", "bfloat16"), default="bfloat16")
    ap.add_argument("--tolerance", type=float, default=0.05, help="largest relative loss difference allowed")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("train_step: needs a CUDA device")
    dtype, dev, cl = getattr(torch, args.dtype), torch.device("cuda"), torch.channels_last
    torch.backends.cudnn.benchmark = True  # cuDNN at its best, as tessel-prof measures it
    torch.manual_seed(0)

    if args.model == "resnet50":
        ref, source = resnet50()
        ref = ref.to(dev, dtype).to(memory_format=cl)
        shape, what = (args.batch, 3, 224, 224), f"ResNet-50 ({source}), batch {args.batch}, {args.dtype}"
        make_target = lambda g: torch.randint(0, 1000, (args.batch,), device=dev, generator=g)  # noqa: E731
        loss_fn = nn.CrossEntropyLoss()
    else:
        ref = mlp(args.dim, args.hidden).to(dev, dtype)
        shape = (args.tokens, args.dim)
        what = f"MLP {args.dim} -> {args.hidden} -> {args.dim}, GELU, {args.tokens} tokens, {args.dtype}"
        make_target = lambda g: torch.randn(shape, device=dev, dtype=dtype, generator=g)  # noqa: E731
        loss_fn = nn.MSELoss()
    mine = copy.deepcopy(ref)
    report = tessel.nn.replace(mine)
    swapped = sum("tessel.nn" in line for line in report)
    print(f"{what}: tessel runs {swapped} of {len(report)} Linear/Conv2d modules")
    for line in report:
        if "kept" in line:
            print("  " + line)

    def run(model, steps):
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        g = torch.Generator(device=dev).manual_seed(1)
        losses, times = [], []
        for i in range(steps + 3):
            x = torch.randn(shape, device=dev, dtype=dtype, generator=g)
            if x.dim() == 4:
                x = x.contiguous(memory_format=cl)
            target = make_target(g)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x).float(), target.float() if target.is_floating_point() else target)
            loss.backward()
            opt.step()
            end.record()
            torch.cuda.synchronize()
            if i >= 3:
                losses.append(loss.item())
                times.append(start.elapsed_time(end))
        return losses, times

    ref_losses, ref_times = run(ref, args.steps)
    my_losses, my_times = run(mine, args.steps)
    worst = max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(ref_losses, my_losses))
    print("step  loss (torch)  loss (tessel)")
    for i, (a, b) in enumerate(zip(ref_losses, my_losses)):
        print(f"{i:4d}  {a:12.6f}  {b:13.6f}")
    t_ref, t_mine = statistics.median(ref_times), statistics.median(my_times)
    print(f"largest relative loss difference {worst:.2e} (tolerance {args.tolerance:g})")
    print(f"median step: torch {t_ref:.2f} ms, tessel {t_mine:.2f} ms, torch / tessel speed {t_ref / t_mine:.2f}")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
