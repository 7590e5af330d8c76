// Put it in order: drag, click and keyboard moves for the Parsons problem.
