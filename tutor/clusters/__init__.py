"""One comment for a whole cluster: the class's wrong answers on an item, grouped by their
normalised form, and the comments teachers write on a group.

Each practice kind says how its answers group (`PracticeKind.clusters` for a class,
`PracticeKind.cluster_of` for one learner's state), in its own folder; this package holds
what is common: the group's shape (groups.py), the comment (models.py), the teacher's pages
and the student's view of a comment (views.py, comments.py).
"""
