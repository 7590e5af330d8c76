"""What learners do. Models arrive with the runner, practice and progress work."""
