"""solvers.learning -- learning heuristics over features (a workflow above the searches).

    learn_heuristic(puzzle, features_spec, out, method="davi", ...)   train and write a model file
    train_davi(...)                                                  deep approximate value iteration
    held_out_check(features, network, seed)                          the model beside its best admissible feature
"""
